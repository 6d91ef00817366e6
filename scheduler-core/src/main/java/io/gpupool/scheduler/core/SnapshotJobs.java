package io.gpupool.scheduler.core;

import java.io.IOException;
import java.util.LinkedHashMap;

/**
 * Snapshot sections about jobs: the active and the finished jobs (request, state, placement, last
 * reason and decision), the waiting queue (job ids, in queue order) and each job's placement identity
 * (version 5, per job in the order the jobs were written; older snapshots give a job that holds
 * resources its PLACED decision's id).
 */
final class SnapshotJobs {
    private SnapshotJobs() {
    }

    static void write(final SnapshotOut out, final PoolState st) throws IOException {
        jobs(out, st.activeJobs);
        jobs(out, st.finishedJobs);
    }

    static void read(final SnapshotIn in, final PoolState st) throws IOException {
        readJobs(in, st.activeJobs);
        readJobs(in, st.finishedJobs);
    }

    static void writeQueue(final SnapshotOut out, final PoolState st) throws IOException {
        out.writeInt(st.queue.size());
        for (final Job j : st.queue) {
            out.str(j.id());
        }
    }

    static void readQueue(final SnapshotIn in, final PoolState st) throws IOException {
        final int queued = in.readInt();
        for (int i = 0; i < queued; i++) {
            st.queue.add(st.activeJobs.get(in.str()));
        }
    }

    static void writePlacements(final SnapshotOut out, final PoolState st) throws IOException {
        placements(out, st.activeJobs);
        placements(out, st.finishedJobs);
    }

    static void readPlacements(final SnapshotIn in, final PoolState st) throws IOException {
        readPlacements(in, st.activeJobs);
        readPlacements(in, st.finishedJobs);
    }

    /** Before version 5: a job that holds resources holds them under its last decision, the PLACED one. */
    static void placementsFromDecisions(final PoolState st) {
        for (final Job j : st.activeJobs.values()) {
            if (j.state.holdsResources() && j.lastDecision != null && j.lastDecision.kind() == DecisionKind.PLACED) {
                j.placementId = j.lastDecision.decisionId();
            }
        }
    }

    /** A job's request; also what a standing plan keeps as its exemplar. */
    static void spec(final SnapshotOut out, final JobSpec s) throws IOException {
        out.str(s.jobId());
        out.str(s.name());
        out.str(s.tenant());
        out.constant(s.priorityClass());
        out.writeInt(s.priority());
        out.writeInt(s.nodes());
        out.writeInt(s.gpusPerNode());
        out.writeInt(s.gpuMilli());
        out.writeLong(s.gpuMemoryMib());
        out.writeLong(s.cpuMilliPerNode());
        out.writeLong(s.memoryMibPerNode());
        out.names(s.allowedModels());
        out.constant(s.topology());
        out.writeBoolean(s.topologyRequired());
        out.constant(s.network());
        out.writeBoolean(s.preemptible());
        out.writeLong(s.deadlineMs());
        out.writeBoolean(s.rejectIfLate());
        out.writeLong(s.runtimeEstimateMs());
        out.writeBoolean(s.placeNowOrReject());
    }

    static JobSpec readSpec(final SnapshotIn in) throws IOException {
        return new JobSpec(in.str(), in.str(), in.str(), in.constant(PriorityClass.class), in.readInt(),
                in.readInt(), in.readInt(), in.readInt(), in.readLong(), in.readLong(), in.readLong(), in.names(),
                in.constant(GangScope.class), in.readBoolean(), in.constant(Network.class),
                in.readBoolean(), in.readLong(), in.readBoolean(), in.readLong(), in.readBoolean());
    }

    private static void jobs(final SnapshotOut out, final LinkedHashMap<String, Job> jobs) throws IOException {
        out.writeInt(jobs.size());
        for (final Job j : jobs.values()) {
            spec(out, j.spec);
            out.writeLong(j.submitSeq);
            out.writeLong(j.submitMs);
            out.constant(j.state);
            SnapshotDecisions.parts(out, j.placement);
            out.writeInt(j.slots.length);
            for (final int s : j.slots) {
                out.writeInt(s);
            }
            out.writeLong(j.placedAtMs);
            out.writeLong(j.startedAtMs);
            out.writeLong(j.queuedSinceMs);
            out.writeInt(j.evictions);
            out.writeLong(j.estimatedRuntimeMs);
            out.writeBoolean(j.currentReason != null);
            if (j.currentReason != null) {
                SnapshotDecisions.reason(out, j.currentReason);
            }
            out.writeBoolean(j.lastDecision != null);
            if (j.lastDecision != null) {
                SnapshotDecisions.decision(out, j.lastDecision);
            }
            out.str(j.preemptedBy);
            out.writeBoolean(j.deadlineMissReported);
        }
    }

    private static void readJobs(final SnapshotIn in, final LinkedHashMap<String, Job> jobs) throws IOException {
        final int count = in.readInt();
        for (int i = 0; i < count; i++) {
            final JobSpec spec = readSpec(in);
            final Job j = new Job(spec, in.readLong(), in.readLong());
            j.state = in.constant(JobState.class);
            j.placement = SnapshotDecisions.readParts(in);
            j.slots = new int[in.readInt()];
            for (int k = 0; k < j.slots.length; k++) {
                j.slots[k] = in.readInt();
            }
            j.placedAtMs = in.readLong();
            j.startedAtMs = in.readLong();
            j.queuedSinceMs = in.readLong();
            j.evictions = in.readInt();
            j.estimatedRuntimeMs = in.readLong();
            j.currentReason = in.readBoolean() ? SnapshotDecisions.readReason(in) : null;
            j.lastDecision = in.readBoolean() ? SnapshotDecisions.readDecision(in) : null;
            j.preemptedBy = in.str();
            j.deadlineMissReported = in.readBoolean();
            jobs.put(j.id(), j);
        }
    }

    private static void placements(final SnapshotOut out, final LinkedHashMap<String, Job> jobs) throws IOException {
        for (final Job j : jobs.values()) {
            out.str(j.placementId);
            out.writeInt(j.earlierPlacements.size());
            for (final String p : j.earlierPlacements) {
                out.str(p);
            }
            out.writeInt(j.staleEvents);
            out.writeInt(j.refusedEvents);
            out.str(j.lastRefusal);
        }
    }

    private static void readPlacements(final SnapshotIn in, final LinkedHashMap<String, Job> jobs) throws IOException {
        for (final Job j : jobs.values()) {
            j.placementId = in.str();
            final int earlier = in.readInt();
            if (earlier < 0 || earlier > Job.EARLIER_KEPT) {
                throw new IOException("job " + j.id() + " has " + earlier + " earlier placements (at most "
                        + Job.EARLIER_KEPT + ")");
            }
            for (int i = 0; i < earlier; i++) {
                j.earlierPlacements.addLast(in.str());
            }
            j.staleEvents = in.readInt();
            j.refusedEvents = in.readInt();
            j.lastRefusal = in.str();
        }
    }
}
