package io.gpupool.scheduler.core;

import java.util.List;
import java.util.Objects;

/**
 * The way out for a waiting job: the single changes to its request that would place it now, the running
 * jobs that hold what it waits for, and the waiting jobs ahead of it. Worked out on demand (explain, the
 * query API) against the pool as it is, never while deciding, and never recorded: a pure function of the
 * engine state, like the reason it goes with.
 *
 * @param fitsNow        the request as it is fits the pool now: it waits for the jobs ahead of it or for the
 *                       head-of-queue reservation, not for capacity
 * @param wouldRunIf     changes to the request, each on its own enough to place the job now: it then fits,
 *                       stays within its tenant's cap and does not delay the job reserved at the head of the
 *                       queue (smallest change first: topology, network, model, estimate, size)
 * @param waitingFor     running jobs whose end frees what it needs, in order of expected end (the first
 *                       {@value PendingAdvisor#SHOWN})
 * @param waitingForCount how many running jobs that is in all
 * @param jobsAhead      waiting jobs the queue policy considers before it (the first {@value PendingAdvisor#SHOWN})
 * @param jobsAheadCount how many wait ahead in all
 * @param notes          facts the reason code alone does not tell (a fabric that is full, not missing)
 */
public record PendingAdvice(String jobId, boolean fitsNow, List<Change> wouldRunIf, List<Holder> waitingFor, int waitingForCount,
                            List<String> jobsAhead, int jobsAheadCount, List<String> notes) {
    public PendingAdvice {
        Objects.requireNonNull(jobId, "jobId");
        wouldRunIf = List.copyOf(wouldRunIf);
        waitingFor = List.copyOf(waitingFor);
        jobsAhead = List.copyOf(jobsAhead);
        notes = List.copyOf(notes);
    }

    /** What a change alters in the request. */
    public enum ChangeKind {
        /** The topology scope as a preference instead of a requirement. */
        TOPOLOGY_PREFERRED,
        /** Another fabric, or any. */
        NETWORK,
        /** Another GPU model. */
        MODEL,
        /** A runtime estimate short enough to run before the head of the queue's reserved start. */
        SHORTER_ESTIMATE,
        /** Fewer nodes in the gang. */
        FEWER_NODES,
        /** Fewer GPUs on its one node. */
        FEWER_GPUS
    }

    /**
     * One change to the request.
     *
     * @param field the request field it changes (network, topologyRequired, allowedModels, runtimeEstimateMs,
     *              nodes, gpusPerNode)
     * @param from  its value now
     * @param to    the value that places the job
     * @param text  the change in words
     */
    public record Change(ChangeKind kind, String field, String from, String to, String text) {
        public Change {
            Objects.requireNonNull(kind, "kind");
        }
    }

    /**
     * A running job that holds part of what the waiting job needs.
     *
     * @param gpuMilli      what it holds in milli-GPU (all nodes)
     * @param nodes         the nodes it runs on
     * @param expectedEndMs stream time it is expected to end (its start plus its runtime estimate, not before
     *                      now); {@code Long.MAX_VALUE} when it has no end ("never")
     */
    public record Holder(String jobId, String tenant, long gpuMilli, List<String> nodes, long expectedEndMs) {
        public Holder {
            Objects.requireNonNull(jobId, "jobId");
            nodes = List.copyOf(nodes);
        }
    }
}
