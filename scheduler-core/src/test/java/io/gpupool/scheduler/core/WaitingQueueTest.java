package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The waiting queue's lazy policy order and the walk's setting aside of shapes. */
class WaitingQueueTest {

    /** The counts kept as jobs come and go are the counts over the waiting jobs; the oldest is the first submitted. */
    @Property(tries = 100)
    void theDepthKeptIsTheDepthCounted(@ForAll final long seed) {
        final Random r = new Random(seed);
        final WaitingQueue q = new WaitingQueue();
        final List<Job> in = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            if (in.isEmpty() || r.nextInt(3) > 0) {
                final Job j = new Job(JobSpec.builder("j" + i).tenant("t" + r.nextInt(4))
                        .priorityClass(PriorityClass.values()[r.nextInt(3)]).gang(1, 1 + r.nextInt(2))
                        .deadline(r.nextBoolean() ? 1_000 : 0, false).build(), i, 10L * i);
                q.add(j);
                in.add(j);
            } else {
                q.remove(in.remove(r.nextInt(in.size())));
            }
            final Map<PriorityClass, Integer> byClass = new TreeMap<>();
            final Map<String, Integer> byTenant = new TreeMap<>();
            for (final PriorityClass p : PriorityClass.values()) {
                byClass.put(p, 0);
            }
            for (final Job j : in) {
                byClass.merge(j.spec.priorityClass(), 1, Integer::sum);
                byTenant.merge(j.spec.tenant(), 1, Integer::sum);
            }
            assertEquals(new QueueDepth(in.size(), byClass, byTenant), q.depth());
            assertEquals(in.stream().min(Comparator.comparingLong(j -> j.submitSeq)).orElse(null), q.oldest());
            assertEquals(in.stream().filter(j -> j.spec.deadlineMs() > 0).sorted(Comparator.comparingLong(j -> j.submitSeq))
                    .toList(), q.withDeadlineInSubmissionOrder());
        }
    }

    /** The lazy merge gives exactly the policy order a full sort gives. */
    @Property(tries = 200)
    void theMergeIsTheFullSort(@ForAll final long seed) {
        final Random r = new Random(seed);
        final EngineConfig cfg = EngineConfig.fromSettings(Map.of("pool", "p", "tenant.a.guaranteed-gpus", "4",
                "tenant.b.weight", "3", "tenant.c.guaranteed-gpus", "1", "tenant.c.weight", "0.5"));
        final PoolState st = new PoolState(cfg);
        st.nowMs = 1_000 + r.nextInt(100_000);
        final String[] tenants = {"a", "b", "c", "d"};
        for (final String t : tenants) {
            if (r.nextBoolean()) {
                st.fairShare.acquire(t, 1000L * r.nextInt(8), r.nextInt(1_000));
            }
        }
        final WaitingQueue q = new WaitingQueue();
        final List<Job> jobs = new ArrayList<>();
        final int n = r.nextInt(60);
        for (int i = 0; i < n; i++) {
            final JobSpec s = JobSpec.builder("j" + i).tenant(tenants[r.nextInt(tenants.length)])
                    .priorityClass(PriorityClass.values()[r.nextInt(3)]).priority(r.nextInt(3))
                    .deadline(r.nextInt(3) == 0 ? 50_000 + r.nextInt(3) * 1000 : 0, false)
                    .gang(1, 1 + r.nextInt(2)).runtimeEstimateMs(r.nextInt(2) * 1000L).build();
            final Job j = new Job(s, i, 0);
            jobs.add(j);
            q.add(j);
        }
        for (int i = 0; i < n / 4; i++) { // leaving works too
            final Job gone = jobs.remove(r.nextInt(jobs.size()));
            q.remove(gone);
        }
        assertEquals(sortedThePlainWay(jobs, st, cfg), ids(q.policyOrdered(st, cfg)));
    }

    /** The order as it is defined: one comparator over every job (the engine's old implementation). */
    private static List<String> sortedThePlainWay(final List<Job> jobs, final PoolState st, final EngineConfig cfg) {
        final TreeMap<String, Double> standing = new TreeMap<>();
        final TreeMap<String, Integer> under = new TreeMap<>();
        for (final Job j : jobs) {
            final TenantConfig tc = cfg.tenant(j.spec.tenant());
            standing.put(j.spec.tenant(), st.fairShare.standing(j.spec.tenant(), tc.weight(), st.nowMs));
            under.put(j.spec.tenant(), st.fairShare.heldMilli(j.spec.tenant()) < tc.guaranteedGpus() * 1000L ? 0 : 1);
        }
        final List<Job> out = new ArrayList<>(jobs);
        out.sort(Comparator.<Job>comparingInt(j -> -j.spec.priorityClass().ordinal())
                .thenComparingInt(j -> under.get(j.spec.tenant()))
                .thenComparingInt(j -> -j.spec.priority())
                .thenComparingLong(j -> j.spec.deadlineMs() > 0 ? j.spec.deadlineMs() : Long.MAX_VALUE)
                .thenComparingDouble(j -> standing.get(j.spec.tenant()))
                .thenComparingLong(j -> j.submitSeq));
        return ids(out);
    }

    private static List<String> ids(final List<Job> jobs) {
        final List<String> out = new ArrayList<>();
        jobs.forEach(j -> out.add(j.id()));
        return out;
    }

    @Test
    void aFailedShapeIsNotReadAgainUntilTheWalkResumes() {
        final EngineConfig cfg = EngineConfig.defaults("p");
        final PoolState st = new PoolState(cfg);
        final WaitingQueue q = new WaitingQueue();
        final List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 6; i++) { // shapes alternate: 1, 8, 1, 8, ...
            final Job j = new Job(JobSpec.builder("j" + i).gang(1, i % 2 == 0 ? 1 : 8).build(), i, 0);
            jobs.add(j);
            q.add(j);
        }
        final WaitingQueue.Walk w = q.walk(st, cfg);
        assertEquals("j0", w.next().id());
        assertEquals("j1", w.next().id());
        w.fail(jobs.get(1).shape); // the 8-GPU shape failed: j3 and j5 are not read
        assertEquals("j2", w.next().id());
        w.refuse(jobs.get(2).shape); // and backfill refuses every 1-GPU job
        assertNull(w.next());
        w.resumeRefused(); // something was placed: 1-GPU jobs come back, 8-GPU stays failed
        assertEquals("j4", w.next().id());
        w.resume(); // capacity was freed: every shape comes back, from where it was
        assertEquals("j3", w.next().id());
        assertEquals("j5", w.next().id());
        assertNull(w.next());
    }

    @Test
    void aStandingPlanLastsUntilItsNodesAreTakenOrItsStartPasses() {
        final StandingPlans plans = new StandingPlans();
        final JobSpec eight = JobSpec.builder("big").gang(1, 8).build();
        final JobSpec one = JobSpec.builder("small").gang(1, 1).build();
        plans.put(eight, 5_000, List.of("n1"));
        plans.put(one, 2_000, List.of("n2"));
        // another job of the same shape gets the plan: the planner reads only the shape
        assertEquals(5_000, plans.get(JobSpec.builder("other").gang(1, 8).build(), 1_000).startAtMs());
        plans.placedOn(Set.of("n1"), QueuePass.shapeKey(eight)); // checked against it by backfill: stands
        assertEquals(5_000, plans.get(eight, 1_000).startAtMs());
        plans.placedOn(Set.of("n1"), null); // placed ahead of it on its node: void
        assertNull(plans.get(eight, 1_000));
        assertEquals(2_000, plans.get(one, 2_000 + StandingPlans.OVERDUE_GRACE_MS - 1).startAtMs());
        assertNull(plans.get(one, 2_000 + StandingPlans.OVERDUE_GRACE_MS),
                "its start passed long ago and the job still waits: the estimates were wrong");
    }
}
