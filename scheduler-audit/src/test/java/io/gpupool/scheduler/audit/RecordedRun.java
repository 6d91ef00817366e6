package io.gpupool.scheduler.audit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.avro.SourceRef;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A small history written by hand for one pool "p": each entry is journaled and applied, its decisions kept. */
final class RecordedRun {
    final List<JournalRecord> journal = new ArrayList<>();
    final List<PlacementDecision> decisions = new ArrayList<>();
    final JournalApplier applier = JournalApplier.offline();
    final PoolEngine engine;

    RecordedRun(final EngineConfig config) {
        this.engine = new PoolEngine(config);
    }

    List<PlacementDecision> add(final long t, final String key, final Object payload) {
        final SourceRef source = SourceRef.newBuilder().setTopic("test").setPartition(0).setOffset(journal.size())
                .setTimestamp(Instant.ofEpochMilli(t)).setKey(key).build();
        final JournalRecord r = new JournalRecord(0, journal.size(), JournalEntry.newBuilder().setPool("p")
                .setTimestamp(Instant.ofEpochMilli(t)).setSource(source).setPayload(payload).build());
        journal.add(r);
        final Applied a = applier.apply(engine, r.entry(), r.position());
        decisions.addAll(a.decisions());
        return a.decisions();
    }

    /** Submits an 8-GPU job; its decisions. */
    List<PlacementDecision> submit(final long t, final String job, final int priority, final boolean preemptible) {
        final JobRequest q = JobRequest.newBuilder().setName(job).setTenant("team").setPool("p").setNodes(1)
                .setGpusPerNode(8).setPriority(priority).setPreemptible(preemptible).build();
        return add(t, job, JobCommand.newBuilder().setJobId(job).setCommandId("submit-" + job)
                .setCommand(JobSubmit.newBuilder().setRequest(q).build()).build());
    }

    /** The sink's event about the job's current placement on node n0; the decisions it caused. */
    List<PlacementDecision> event(final long t, final String job, final JobEventType type) {
        return add(t, job, JobEvent.newBuilder().setJobId(job).setEventId(type + "-" + job + "-" + t).setType(type)
                .setPlacementId(engine.placementOf(job)).setNodeId("n0").setOccurredAt(Instant.ofEpochMilli(t)).build());
    }

    /** The id of the PLACED decision among {@code decisions} that placed {@code job} ("" when none did). */
    static String placed(final List<PlacementDecision> decisions, final String job) {
        return decisions.stream().filter(d -> d.getOutcome() == DecisionOutcome.PLACED && d.getJobId().equals(job))
                .map(PlacementDecision::getDecisionId).findFirst().orElse("");
    }
}
