package io.gpupool.scheduler.audit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.GpuCondition;
import io.gpupool.avro.GpuHealth;
import io.gpupool.avro.GpuHealthChange;
import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.HcaPort;
import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.LinkLayer;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.avro.SourceRef;
import io.gpupool.avro.Tick;
import io.gpupool.avro.UtilisationBand;
import io.gpupool.avro.UtilisationBandChange;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * A seeded, recorded scheduler history without a broker: a journal as stage 1 would write it (node
 * inventory, utilisation and health facts, heartbeats, clock ticks, job submits, and the job events a
 * sink reports for what the engine placed), with the decisions the engine made. The audit benchmark
 * and the audit tests use it; the sink's reaction (started, completed after the job's runtime) is
 * driven by the decisions, as on a live pool.
 */
public final class SyntheticHistory {
    static final String MODEL = "NVIDIA H100 80GB HBM3";
    private static final long STEP_MS = 10;
    /** The bands a utilisation move goes to (all but UNKNOWN). */
    private static final List<UtilisationBand> BANDS = List.of(UtilisationBand.IDLE, UtilisationBand.LOW,
            UtilisationBand.MEDIUM, UtilisationBand.HIGH);

    /** A journal (one partition, offsets from 0) and the decisions and node commands it caused, in order. */
    public record Recording(List<JournalRecord> journal, List<PlacementDecision> decisions, List<NodeCommand> commands) {
    }

    private record Pending(long atMs, long seq, String jobId, JobEventType type, int run, String placementId) {
    }

    private record Heal(long atMs, String gpu) {
    }

    private SyntheticHistory() {
    }

    public static Recording record(final String pool, final int nodes, final int entries, final long seed,
                                   final EngineConfig config) {
        final Random rnd = new Random(seed);
        final JournalApplier applier = JournalApplier.offline();
        final PoolEngine engine = new PoolEngine(config);
        final List<JournalRecord> journal = new ArrayList<>(entries);
        final List<PlacementDecision> decisions = new ArrayList<>();
        final List<NodeCommand> commands = new ArrayList<>();
        final PriorityQueue<Pending> pending = new PriorityQueue<>((a, b) -> a.atMs != b.atMs
                ? Long.compare(a.atMs, b.atMs) : Long.compare(a.seq, b.seq));
        final Map<String, Long> runtimes = new HashMap<>();
        final Map<String, Integer> runs = new HashMap<>();
        final ArrayDeque<Heal> heals = new ArrayDeque<>();
        long t = 1_000;
        long seq = 0;
        int job = 0;
        for (int n = 0; n < nodes && journal.size() < entries; n++) {
            add(journal, decisions, commands, applier, engine, entry(pool, t, "n" + n, new InventoryChange("n" + n, false,
                    node(pool, "n" + n, "leaf-" + (n / 8), 8))));
        }
        while (journal.size() < entries) {
            t += STEP_MS;
            final Object payload;
            String key = null;
            while (!pending.isEmpty() && pending.peek().run() != runs.getOrDefault(pending.peek().jobId(), 0)) {
                pending.poll(); // the sink stopped that run when the job was evicted
            }
            if (!pending.isEmpty() && pending.peek().atMs() <= t) {
                final Pending p = pending.poll();
                key = p.jobId();
                payload = JobEvent.newBuilder().setJobId(p.jobId()).setEventId(p.type() + "-" + p.jobId() + "-" + p.seq())
                        .setType(p.type()).setPlacementId(p.placementId()).setOccurredAt(Instant.ofEpochMilli(t)).build();
            } else {
                final int kind = rnd.nextInt(10_000);
                final String node = "n" + rnd.nextInt(nodes);
                final int gpu = rnd.nextInt(8);
                final String[] heal = heals.isEmpty() || heals.peek().atMs() > t ? null : heals.poll().gpu().split("/");
                if (heal != null) {
                    key = heal[0];
                    payload = health(heal[0], Integer.parseInt(heal[1]), true);
                } else if (kind < 7_000) {
                    key = node;
                    payload = UtilisationBandChange.newBuilder().setNodeId(node).setGpuUuid(uuid(node, gpu)).setGpuIndex(gpu)
                            .setBand(BANDS.get(rnd.nextInt(BANDS.size()))).build();
                } else if (kind < 9_000) {
                    key = node;
                    payload = Tick.newBuilder().setReason("heartbeat").setNodeId(node).build();
                } else if (kind < 9_900) {
                    payload = Tick.newBuilder().setReason("clock").build();
                } else if (kind < 9_902) {
                    // an Xid takes a GPU out; it is back after a reset half a minute later
                    key = node;
                    heals.add(new Heal(t + 30_000, node + "/" + gpu));
                    payload = health(node, gpu, false);
                } else {
                    final String id = "job-" + job++;
                    key = id;
                    final int gang = rnd.nextInt(10) == 0 ? 2 : 1;
                    final int gpus = 1 << rnd.nextInt(4);
                    runtimes.put(id, 5_000L + rnd.nextInt(120_000));
                    payload = JobCommand.newBuilder().setJobId(id).setCommandId("submit-" + id)
                            .setCommand(JobSubmit.newBuilder().setRequest(JobRequest.newBuilder().setName("train")
                                    .setTenant("team-" + (char) ('a' + rnd.nextInt(3))).setPool(pool).setNodes(gang)
                                    .setGpusPerNode(gpus).setPriority(rnd.nextInt(3))
                                    .setPreemptible(rnd.nextBoolean()).build()).build())
                            .build();
                }
            }
            final Applied a = add(journal, decisions, commands, applier, engine, entry(pool, t, key, payload));
            for (final PlacementDecision d : a.decisions()) {
                final String id = d.getJobId().toString();
                if (d.getOutcome() == DecisionOutcome.PLACED) {
                    final int run = runs.merge(id, 1, Integer::sum);
                    pending.add(new Pending(t + 100, seq++, id, JobEventType.STARTED, run, d.getDecisionId()));
                    pending.add(new Pending(t + runtimes.getOrDefault(id, 10_000L), seq++, id, JobEventType.COMPLETED, run,
                            d.getDecisionId()));
                } else if (d.getOutcome() == DecisionOutcome.EVICTED || d.getOutcome() == DecisionOutcome.CANCELLED) {
                    runs.merge(id, 1, Integer::sum);
                }
            }
        }
        return new Recording(journal, decisions, commands);
    }

    private static Applied add(final List<JournalRecord> journal, final List<PlacementDecision> decisions,
                               final List<NodeCommand> commands, final JournalApplier applier, final PoolEngine engine,
                               final JournalEntry e) {
        final JournalRecord r = new JournalRecord(0, journal.size(), e);
        journal.add(r);
        final Applied a = applier.apply(engine, e, r.position());
        decisions.addAll(a.decisions());
        commands.addAll(a.commands());
        return a;
    }

    private static JournalEntry entry(final String pool, final long t, final String key, final Object payload) {
        final SourceRef source = key == null ? null : SourceRef.newBuilder().setTopic("synthetic").setPartition(0)
                .setOffset(0).setTimestamp(Instant.ofEpochMilli(t)).setKey(key).build();
        return JournalEntry.newBuilder().setPool(pool).setTimestamp(Instant.ofEpochMilli(t)).setSource(source)
                .setPayload(payload).build();
    }

    private static GpuHealthChange health(final String node, final int gpu, final boolean healthy) {
        return GpuHealthChange.newBuilder().setNodeId(node).setGpuUuid(uuid(node, gpu)).setGpuIndex(gpu)
                .setHealth(healthy ? GpuHealth.HEALTHY : GpuHealth.UNHEALTHY).setReasonCode(healthy ? null : "XID")
                .setConditions(healthy ? List.of() : List.of(GpuCondition.XID))
                .setXidCodes(healthy ? List.of() : List.of(79)).setEvidence(healthy ? null : "Xid 79").build();
    }

    public static String uuid(final String node, final int gpu) {
        return "GPU-" + node + "-" + gpu;
    }

    public static NodeInventory node(final String pool, final String nodeId, final String leaf, final int gpus) {
        final List<GpuInfo> g = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            g.add(GpuInfo.newBuilder().setUuid(uuid(nodeId, i)).setIndex(i).setModel(MODEL).setMemoryMiB(81_559L)
                    .setNvlinkGroup("nv0").build());
        }
        return NodeInventory.newBuilder().setNodeId(nodeId).setPool(pool).setLeaf(leaf).setSpine("spine-1")
                .setObservedAt(Instant.ofEpochMilli(0)).setSource("synthetic").setGpus(g)
                .setCpuMilli(128_000L).setMemoryMiB(1_000_000L)
                .setHcas(List.of(HcaPort.newBuilder().setName("mlx5_0").setPort(1).setLinkLayer(LinkLayer.INFINIBAND)
                        .setLeaf(leaf).setSpine("spine-1").build()))
                .build();
    }
}
