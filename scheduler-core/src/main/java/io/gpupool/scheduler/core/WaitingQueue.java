package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * The waiting jobs, kept so that a queue pass costs what it does, not the length of the queue.
 *
 * <p>The policy order: priority class; then jobs inside their tenant's guaranteed quota before
 * borrowers; numeric priority; earliest deadline first; the tenant with the least fair-share usage
 * per weight; and finally submission order. Every key is a pure function of the state, so the order
 * is the same after a restore. Inside one tenant the two tenant keys are constant, so the jobs are
 * kept sorted by the other keys in groups of one tenant and one shape ({@link QueuePass#shapeKey}),
 * and a pass merges the groups lazily ({@link Walk}). When a shape has failed in a pass, its groups
 * leave the merge at once: the pass never reads the jobs that could not start anyway.
 */
final class WaitingQueue implements Iterable<Job> {
    /** The policy order restricted to one tenant. */
    private static final Comparator<Job> WITHIN_TENANT = Comparator
            .<Job>comparingInt(j -> -j.spec.priorityClass().ordinal())
            .thenComparingInt(j -> -j.spec.priority())
            .thenComparingLong(j -> deadline(j))
            .thenComparingLong(j -> j.submitSeq);

    private record GroupKey(String tenant, Object shape) {
    }

    private final TreeSet<Job> bySubmission = new TreeSet<>(Comparator.comparingLong(j -> j.submitSeq));
    /** Insertion order; the merge order does not depend on it (every job has a distinct place). */
    private final LinkedHashMap<GroupKey, TreeSet<Job>> groups = new LinkedHashMap<>();
    /** Waiting jobs per shape; only looked up and counted, never iterated. */
    private final HashMap<Object, ShapeStats> shapes = new HashMap<>();
    /** Waiting jobs that have a deadline, in submission order: all a deadline check has to read. */
    private final TreeSet<Job> withDeadline = new TreeSet<>(Comparator.comparingLong(j -> j.submitSeq));
    /** Waiting jobs per priority class (by ordinal) and per tenant: the queue depth without a walk. */
    private final int[] perClass = new int[PriorityClass.values().length];
    private final TreeMap<String, int[]> perTenant = new TreeMap<>();

    /** How many jobs of a shape wait, and the runtime estimates they asked for (0: none asked). */
    private static final class ShapeStats {
        int count;
        final TreeMap<Long, int[]> asked = new TreeMap<>();
    }

    private static long deadline(final Job j) {
        return j.spec.deadlineMs() > 0 ? j.spec.deadlineMs() : Long.MAX_VALUE;
    }

    void add(final Job j) {
        if (!bySubmission.add(j)) {
            return;
        }
        groups.computeIfAbsent(new GroupKey(j.spec.tenant(), j.shape), g -> new TreeSet<>(WITHIN_TENANT)).add(j);
        final ShapeStats st = shapes.computeIfAbsent(j.shape, s -> new ShapeStats());
        st.count++;
        st.asked.computeIfAbsent(j.spec.runtimeEstimateMs(), e -> new int[1])[0]++;
        if (j.spec.deadlineMs() > 0) {
            withDeadline.add(j);
        }
        perClass[j.spec.priorityClass().ordinal()]++;
        perTenant.computeIfAbsent(j.spec.tenant(), t -> new int[1])[0]++;
    }

    void remove(final Job j) {
        if (!bySubmission.remove(j)) {
            return;
        }
        final GroupKey key = new GroupKey(j.spec.tenant(), j.shape);
        final TreeSet<Job> g = groups.get(key);
        g.remove(j);
        if (g.isEmpty()) {
            groups.remove(key);
        }
        final ShapeStats st = shapes.get(j.shape);
        if (--st.count == 0) {
            shapes.remove(j.shape);
        } else if (--st.asked.get(j.spec.runtimeEstimateMs())[0] == 0) {
            st.asked.remove(j.spec.runtimeEstimateMs());
        }
        withDeadline.remove(j);
        perClass[j.spec.priorityClass().ordinal()]--;
        final int[] t = perTenant.get(j.spec.tenant());
        if (--t[0] == 0) {
            perTenant.remove(j.spec.tenant());
        }
    }

    boolean isEmpty() {
        return bySubmission.isEmpty();
    }

    int size() {
        return bySubmission.size();
    }

    /**
     * The shortest runtime estimate any waiting job of this shape can have: the least estimate asked
     * for, or, for jobs that asked none, {@code unaskedLeast} (the least the estimator can give).
     */
    long leastEstimate(final Object shape, final LongSupplier unaskedLeast) {
        final ShapeStats st = shapes.get(shape);
        if (st == null) {
            return Long.MAX_VALUE;
        }
        final long lowestAsked = st.asked.firstKey();
        if (lowestAsked > 0) {
            return lowestAsked;
        }
        final Long asked = st.asked.higherKey(0L);
        return Math.min(asked == null ? Long.MAX_VALUE : asked, unaskedLeast.getAsLong());
    }

    /** Submission order. */
    @Override
    public Iterator<Job> iterator() {
        return bySubmission.iterator();
    }

    /** The longest-waiting job (the first submitted: submission order is stream-time order); null when none waits. */
    Job oldest() {
        return bySubmission.isEmpty() ? null : bySubmission.first();
    }

    /** A copy of the waiting jobs that have a deadline, in submission order (the caller may change the queue). */
    List<Job> withDeadlineInSubmissionOrder() {
        return new ArrayList<>(withDeadline);
    }

    /** How many jobs wait, by priority class and by tenant; costs the number of classes and tenants. */
    QueueDepth depth() {
        final Map<PriorityClass, Integer> byClass = new EnumMap<>(PriorityClass.class);
        for (final PriorityClass p : PriorityClass.values()) {
            byClass.put(p, perClass[p.ordinal()]);
        }
        final Map<String, Integer> byTenant = new TreeMap<>();
        perTenant.forEach((t, n) -> byTenant.put(t, n[0]));
        return new QueueDepth(size(), byClass, byTenant);
    }

    /** Everything in policy order (views and explanations). */
    List<Job> policyOrdered(final PoolState st, final EngineConfig cfg) {
        final List<Job> out = new ArrayList<>(size());
        final Walk w = walk(st, cfg);
        for (Job j = w.next(); j != null; j = w.next()) {
            out.add(j);
        }
        return out;
    }

    /** A walk in policy order, with tenant standings taken now: fixed while the pass places jobs. */
    Walk walk(final PoolState st, final EngineConfig cfg) {
        final TreeMap<String, double[]> tenantKeys = new TreeMap<>();
        final Walk w = new Walk();
        for (final Map.Entry<GroupKey, TreeSet<Job>> e : groups.entrySet()) {
            final String t = e.getKey().tenant();
            final double[] keys = tenantKeys.computeIfAbsent(t, k -> {
                final TenantConfig tc = cfg.tenant(k);
                return new double[] {st.fairShare.heldMilli(k) < tc.guaranteedGpus() * 1000L ? 0 : 1,
                        st.fairShare.standing(k, tc.weight(), st.nowMs)};
            });
            final Cursor c = new Cursor(e.getValue(), e.getKey().shape(), (int) keys[0], keys[1]);
            c.head = e.getValue().first();
            w.heads.add(c);
        }
        return w;
    }

    /**
     * The waiting jobs in policy order, read lazily; jobs placed or removed meanwhile are skipped by
     * the caller's state check, and the walk goes on from where it was. A shape can be set aside:
     * failed (until {@link #resume}) or refused by backfill (until {@link #resumeRefused}); its jobs
     * are then not read at all.
     */
    static final class Walk {
        private final PriorityQueue<Cursor> heads = new PriorityQueue<>(Cursor.ORDER);
        private final Set<Object> failed = new HashSet<>();
        private final Set<Object> refused = new HashSet<>();
        private final List<Cursor> aside = new ArrayList<>();

        /** The next job, or null when none is left outside the shapes set aside. */
        Job next() {
            while (true) {
                final Cursor c = heads.poll();
                if (c == null) {
                    return null;
                }
                if (failed.contains(c.shape) || refused.contains(c.shape)) {
                    aside.add(c);
                    continue;
                }
                final Job out = c.head;
                c.head = c.jobs.higher(out); // works after out has left the set as well
                if (c.head != null) {
                    heads.add(c);
                }
                return out;
            }
        }

        boolean failed(final Object shape) {
            return failed.contains(shape);
        }

        /** No job of this shape fits now: nothing freed in this pass will change that (until resume). */
        void fail(final Object shape) {
            failed.add(shape);
            refused.remove(shape);
        }

        /** Backfill refuses every waiting job of this shape (until something is placed). */
        void refuse(final Object shape) {
            if (!failed.contains(shape)) {
                refused.add(shape);
            }
        }

        /** Something was placed: candidates moved, refused shapes come back. */
        void resumeRefused() {
            if (!refused.isEmpty()) {
                refused.clear();
                putBack();
            }
        }

        /** Capacity was freed (eviction): every shape comes back. */
        void resume() {
            failed.clear();
            refused.clear();
            putBack();
        }

        private void putBack() {
            heads.addAll(aside);
            aside.clear();
        }
    }

    /** One group's place in the merge: its next job and its tenant's keys, fixed for the pass. */
    private static final class Cursor {
        static final Comparator<Cursor> ORDER = Comparator
                .<Cursor>comparingInt(c -> -c.head.spec.priorityClass().ordinal())
                .thenComparingInt(c -> c.guarantee)
                .thenComparingInt(c -> -c.head.spec.priority())
                .thenComparingLong(c -> deadline(c.head))
                .thenComparingDouble(c -> c.standing)
                .thenComparingLong(c -> c.head.submitSeq);

        final TreeSet<Job> jobs;
        final Object shape;
        final int guarantee;
        final double standing;
        Job head;

        Cursor(final TreeSet<Job> jobs, final Object shape, final int guarantee, final double standing) {
            this.jobs = jobs;
            this.shape = shape;
            this.guarantee = guarantee;
            this.standing = standing;
        }
    }
}
