package io.gpupool.scheduler.core;

/**
 * The one walk over the capacity index that every placement policy uses: the nodes of one
 * (leaf, model) group whose count of free healthy GPUs lies in a range of buckets, bucket by bucket
 * and in member (node-slot) order within a bucket, that pass the job's node filter. It is a cursor
 * rather than a callback so that the engine's hot loop allocates nothing and each policy keeps its
 * own early exits. One walk at a time: a caller finishes or drops a walk before starting the next.
 */
final class NodeScan {
    private final PoolState st;
    private CapacityIndex.Group group;
    private long[][] buckets;
    private int[] counts;
    private JobSpec job;
    private boolean gang;
    private int bucket;
    private int lastBucket;
    /** Member position of the node last returned in the current bucket, -1 before the first. */
    private int position;

    NodeScan(final PoolState st) {
        this.st = st;
    }

    /**
     * Whether node {@code n} can take one node's part of the job: CPU, memory and network, and for a
     * job over several nodes fabric links in order.
     */
    static boolean fits(final NodeState n, final JobSpec job, final boolean multiNode) {
        if (n.cpuFree < job.cpuMilliPerNode() || n.memFree < job.memoryMibPerNode()) {
            return false;
        }
        return job.network().satisfiedBy(n.infiniband, n.roce) && (!multiNode || n.linkOk());
    }

    /**
     * Starts a walk over the nodes of {@code g} with {@code from..to} free GPUs that fit the job
     * (with {@code gangOnly}, only nodes fit for multi-node jobs, filtered as part of a gang).
     * Returns the first such node, or null.
     */
    NodeState first(final CapacityIndex.Group g, final int from, final int to, final boolean gangOnly,
                    final JobSpec forJob) {
        final int[] c = gangOnly ? g.gangCount : g.allCount;
        // buckets above the group's largest node are always empty
        final int last = Math.min(to, g.maxGpus);
        int b = from;
        while (b <= last && c[b] == 0) {
            b++;
        }
        if (b > last) {
            return null; // most groups have no node in the range: answer before setting up a walk
        }
        group = g;
        buckets = gangOnly ? g.gang : g.all;
        counts = c;
        job = forJob;
        gang = gangOnly;
        bucket = b;
        lastBucket = last;
        position = -1;
        return next();
    }

    /** The walk's next node, or null when it is done. */
    NodeState next() {
        // locals, not fields, in the loop: this is the engine's hot path
        final int[] members = group.members;
        final JobSpec j = job;
        final boolean multiNode = gang;
        for (; bucket <= lastBucket; bucket++, position = -1) {
            if (counts[bucket] == 0) {
                continue;
            }
            final long[] bits = buckets[bucket];
            for (int p = CapacityIndex.next(bits, position + 1); p >= 0; p = CapacityIndex.next(bits, p + 1)) {
                final NodeState n = st.node(members[p]);
                if (fits(n, j, multiNode)) {
                    position = p;
                    return n;
                }
            }
        }
        return null;
    }

    /** The bucket (free healthy GPUs) of the node last returned. */
    int bucket() {
        return bucket;
    }

    /**
     * First-fit's order instead of bucket order: the fitting node of {@code g} lowest in member
     * order among those with {@code from} or more free GPUs, or null.
     */
    NodeState firstInSlotOrder(final CapacityIndex.Group g, final int from, final JobSpec forJob) {
        int after = 0;
        while (true) {
            int p = -1;
            for (int b = from; b <= g.maxGpus; b++) {
                if (g.allCount[b] > 0) {
                    final int q = CapacityIndex.next(g.all[b], after);
                    if (q >= 0 && (p < 0 || q < p)) {
                        p = q;
                    }
                }
            }
            if (p < 0) {
                return null;
            }
            final NodeState n = st.node(g.members[p]);
            if (fits(n, forJob, false)) {
                return n;
            }
            after = p + 1;
        }
    }
}
