package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The victim search against a brute force: on small random pools every subset of the eligible
 * victims is tried with the placer itself (take the subset off, ask for a placement, put it back),
 * and the search must return a set of exactly the least cost among those that free a placement.
 */
class PreemptionSearchPropertiesTest {

    /** Enough to hold the subsets of the brute force small. */
    private static final int MAX_VICTIMS = 12;

    private record Scenario(PoolEngine engine, Job blocked) {
    }

    private static Map<String, String> settings(final String... kv) {
        final Map<String, String> m = new TreeMap<>();
        m.put("pool", "p");
        m.put("stale-telemetry-timeout-ms", "0");
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    /**
     * A random pool (1-3 leaves of 1-3 nodes, 2/4/8 GPUs, sometimes a second model, sometimes a down
     * link) filled with random jobs placed at random times, some started later; then one blocked job
     * of a random shape. Preemption is off while it is built, so nothing moves.
     */
    private static Scenario scenario(final long seed, final PriorityClass blockedClass) {
        return scenario(seed, blockedClass, false);
    }

    /** With {@code gangs}: more nodes, running gangs, and the blocked job always a gang. */
    private static Scenario scenario(final long seed, final PriorityClass blockedClass, final boolean gangs) {
        final Random r = new Random(seed);
        if (!gangs && r.nextInt(3) == 0) {
            return crowded(r, blockedClass);
        }
        final PoolEngine e = new PoolEngine(EngineConfig.fromSettings(settings("preemption", "false")));
        final int leaves = 1 + r.nextInt(3);
        final List<String> nodes = new ArrayList<>();
        for (int l = 0; l < leaves; l++) {
            final int perLeaf = (gangs ? 2 : 1) + r.nextInt(3);
            for (int i = 0; i < perLeaf; i++) {
                final String id = "n" + l + "-" + i;
                nodes.add(id);
                final int gpus = new int[] {2, 4, 8}[r.nextInt(3)];
                e.apply(new EngineInput.NodeUpsert(0, Pools.node(id, "l" + l, "s" + (l / 2), gpus,
                        r.nextInt(5) == 0 ? "A100" : "H100", 1 + r.nextInt(gpus))));
            }
        }
        if (r.nextInt(4) == 0) {
            e.apply(new EngineInput.LinkFact(1, nodes.get(r.nextInt(nodes.size())), "p0", false, false, false));
        }
        long t = 1_000;
        final int jobs = 4 + r.nextInt(12);
        for (int i = 0; i < jobs; i++) {
            t += 1_000 * (1 + r.nextInt(60));
            final PriorityClass pc = r.nextInt(3) == 0 ? PriorityClass.BATCH : PriorityClass.BEST_EFFORT;
            final JobSpec.Builder b = JobSpec.builder("j" + i).tenant("t" + r.nextInt(2)).priorityClass(pc)
                    .priority(r.nextInt(3)).preemptible(r.nextInt(5) > 0).placeNowOrReject(true)
                    .cpuMilli(r.nextInt(3) * 40_000L).memoryMib(r.nextInt(2) * 600_000L);
            if (gangs && r.nextInt(5) < 2) {
                b.gang(2 + r.nextInt(2), 1 + r.nextInt(4)).topology(GangScope.values()[1 + r.nextInt(3)], r.nextBoolean());
            } else {
                shape(r, b, false);
            }
            e.apply(new EngineInput.SubmitJob(t, b.build()));
            if (r.nextBoolean()) {
                e.apply(new EngineInput.JobReport(t + r.nextInt(30_000), "j" + i, EngineInput.JobEventKind.STARTED,
                        e.placementOf("j" + i), "", ""));
            }
        }
        t += 1_000 * (1 + r.nextInt(600));
        final JobSpec.Builder b = JobSpec.builder("blocked").priorityClass(blockedClass).tenant("t0")
                .cpuMilli(r.nextInt(3) * 40_000L).memoryMib(r.nextInt(2) * 600_000L);
        if (gangs) {
            b.gang(2 + r.nextInt(2), 2 + r.nextInt(7)).topology(GangScope.values()[1 + r.nextInt(3)], r.nextInt(4) > 0);
        } else {
            shape(r, b, true);
        }
        e.apply(new EngineInput.SubmitJob(t, b.build()));
        return new Scenario(e, e.st.activeJobs.get("blocked"));
    }

    /** Running jobs are mostly small (many victims to choose from); the blocked job mostly large. */
    /**
     * One or two 8-GPU nodes crowded with small jobs placed on a coarse clock (equal GPU-time lost
     * happens, so the later keys decide), and a blocked single-node job: where taking the cheapest
     * victims first is not the cheapest set.
     */
    private static Scenario crowded(final Random r, final PriorityClass blockedClass) {
        final PoolEngine e = new PoolEngine(EngineConfig.fromSettings(settings("preemption", "false")));
        final int nodes = 1 + r.nextInt(2);
        for (int i = 0; i < nodes; i++) {
            e.apply(new EngineInput.NodeUpsert(0, Pools.node("n0-" + i, "l0", 8)));
        }
        long t = 10_000;
        final int jobs = 4 + r.nextInt(7);
        for (int i = 0; i < jobs; i++) {
            t += 10_000 * r.nextInt(3);
            final JobSpec.Builder b = JobSpec.builder("j" + i).priorityClass(r.nextInt(4) == 0 ? PriorityClass.BATCH
                    : PriorityClass.BEST_EFFORT).preemptible(r.nextInt(6) > 0).placeNowOrReject(true);
            if (r.nextInt(5) == 0) {
                b.share(250 * (1 + r.nextInt(3)), 0);
            } else {
                b.gang(1, 1 + r.nextInt(3));
            }
            e.apply(new EngineInput.SubmitJob(t, b.build()));
        }
        t += 10_000 * (1 + r.nextInt(6));
        e.apply(new EngineInput.SubmitJob(t, JobSpec.builder("blocked").priorityClass(blockedClass)
                .gang(1, 2 + r.nextInt(7)).build()));
        return new Scenario(e, e.st.activeJobs.get("blocked"));
    }

    private static void shape(final Random r, final JobSpec.Builder b, final boolean blocked) {
        final int kind = r.nextInt(10);
        if (kind < 5) {
            b.gang(1, blocked ? 2 + r.nextInt(7) : 1 + r.nextInt(r.nextBoolean() ? 2 : 8));
        } else if (kind < 7) {
            b.gang(2 + r.nextInt(2), blocked ? 2 + r.nextInt(7) : 1 + r.nextInt(4))
                    .topology(GangScope.values()[1 + r.nextInt(3)], r.nextBoolean());
        } else if (kind < 9) {
            b.share(100 * (1 + r.nextInt(9)), r.nextInt(3) * 30_000L);
        } else {
            b.gang(1, 0).cpuMilli(50_000);
        }
        if (r.nextInt(6) == 0) {
            b.models("H100");
        }
    }

    private static boolean feasible(final PoolEngine e, final Job j, final List<Job> set) {
        for (final Job v : set) {
            e.unaccount(v);
        }
        final boolean fits = e.placer().place(j.spec) != null;
        for (int i = set.size() - 1; i >= 0; i--) {
            e.reaccount(set.get(i));
        }
        return fits;
    }

    /** The least cost over every subset (of at most {@code limit} victims) that frees a placement; null if none. */
    private static VictimSearch.Cost bruteForce(final PoolEngine e, final Job j, final List<Job> eligible, final int limit) {
        VictimSearch.Cost best = null;
        for (int mask = 1; mask < 1 << eligible.size(); mask++) {
            if (Integer.bitCount(mask) > limit) {
                continue;
            }
            final List<Job> set = new ArrayList<>();
            for (int i = 0; i < eligible.size(); i++) {
                if ((mask & 1 << i) != 0) {
                    set.add(eligible.get(i));
                }
            }
            final VictimSearch.Cost c = VictimSearch.costOf(set, e.st.nowMs);
            if ((best == null || c.compareTo(best) < 0) && feasible(e, j, set)) {
                best = c;
            }
        }
        return best;
    }

    private static void checkAgainstBruteForce(final Scenario s, final boolean consolidation, final int limit) {
        final PoolEngine e = s.engine();
        final Job j = s.blocked();
        if (j == null || j.state != JobState.QUEUED || e.placer().place(j.spec) != null) {
            return; // it fit, or was rejected
        }
        final VictimSearch search = new VictimSearch(e, e.st, e.config(), e.placer());
        final List<Job> eligible = new ArrayList<>();
        for (final Job v : e.st.activeJobs.values()) {
            if (search.eligible(j, v, consolidation)) {
                eligible.add(v);
            }
        }
        if (eligible.size() > MAX_VICTIMS) {
            return;
        }
        final byte[] before = e.snapshot();
        final VictimSearch.Plan plan = search.search(j, consolidation);
        assertArrayEquals(before, e.snapshot(), "the search leaves the pool exactly as it was");
        final VictimSearch.Cost expected = bruteForce(e, j, eligible, limit);
        if (expected == null) {
            assertNull(plan, "no subset frees a placement, yet the search chose " + plan);
            return;
        }
        assertNotNull(plan, "the brute force found " + expected + " but the search found nothing");
        assertTrue(plan.exact(), "small pools are searched exhaustively");
        assertEquals(VictimSearch.costOf(plan.victims(), e.st.nowMs), plan.cost());
        assertEquals(expected, plan.cost(), "cheapest set; search chose " + ids(plan.victims()));
        assertTrue(plan.victims().size() <= limit);
        assertTrue(feasible(e, j, plan.victims()), "the set frees a placement");
        for (final Job v : plan.victims()) {
            assertTrue(eligible.contains(v), v.id() + " is eligible");
            final List<Job> less = new ArrayList<>(plan.victims());
            less.remove(v);
            assertFalse(feasible(e, j, less), "every victim is needed: without " + v.id() + " it still fits");
        }
    }

    private static List<String> ids(final List<Job> jobs) {
        return jobs.stream().map(Job::id).toList();
    }

    @Property(tries = 300)
    void preemptionChoosesTheCheapestSetOfAllSubsets(@ForAll final long seed) {
        final Scenario s = scenario(seed, PriorityClass.PRODUCTION);
        checkAgainstBruteForce(s, false, Integer.MAX_VALUE);
        if (s.blocked() != null && s.blocked().state == JobState.QUEUED) {
            for (final Job v : s.engine().st.activeJobs.values()) {
                if (new VictimSearch(s.engine(), s.engine().st, s.engine().config(), s.engine().placer())
                        .eligible(s.blocked(), v, false)) {
                    assertTrue(v.spec.preemptible() && v.spec.priorityClass().compareTo(PriorityClass.PRODUCTION) < 0,
                            "only lower-class preemptible jobs are victims");
                }
            }
        }
    }

    @Property(tries = 300)
    void preemptionForGangsChoosesTheCheapestSetOfAllSubsets(@ForAll final long seed) {
        checkAgainstBruteForce(scenario(seed, PriorityClass.PRODUCTION, true), false, Integer.MAX_VALUE);
    }

    @Property(tries = 150)
    void consolidationForGangsChoosesTheCheapestSetWithinItsLimit(@ForAll final long seed,
                                                                  @ForAll @IntRange(min = 1, max = 4) final int limit) {
        final Scenario s = scenario(seed, PriorityClass.BATCH, true);
        final PoolEngine e = under(s.engine(), EngineConfig.fromSettings(
                settings("preemption", "false", "consolidation-max-evictions", Integer.toString(limit))));
        checkAgainstBruteForce(new Scenario(e, e.st.activeJobs.get("blocked")), true, limit);
    }

    @Property(tries = 150)
    void consolidationChoosesTheCheapestSetWithinItsLimit(@ForAll final long seed,
                                                          @ForAll @IntRange(min = 1, max = 3) final int limit) {
        final Scenario s = scenario(seed, PriorityClass.BATCH);
        final PoolEngine e = under(s.engine(), EngineConfig.fromSettings(
                settings("preemption", "false", "consolidation-max-evictions", Integer.toString(limit))));
        checkAgainstBruteForce(new Scenario(e, e.st.activeJobs.get("blocked")), true, limit);
    }

    /**
     * In the engine: the pass evicts exactly the searched set, records who preempted whom on every
     * eviction and on the placement, requeues the victims, and places the job where every victim held
     * something (on one leaf when the leaf is required).
     */
    @Property(tries = 200)
    void theEngineEvictsTheCheapestSetAndRecordsWhoPreemptedWhom(@ForAll final long seed) {
        final Scenario s = scenario(seed, PriorityClass.PRODUCTION);
        final Job j = s.blocked();
        if (j == null || j.state != JobState.QUEUED) {
            return;
        }
        final EngineConfig on = EngineConfig.fromSettings(settings());
        final PoolEngine e = under(s.engine(), on);
        final Job blocked = e.st.activeJobs.get("blocked");
        final VictimSearch.Plan plan = new VictimSearch(e, e.st, on, e.placer()).search(blocked, false);
        final Map<String, List<PlacementPart>> held = new TreeMap<>();
        if (plan != null) {
            plan.victims().forEach(v -> held.put(v.id(), v.placement));
        }
        final EngineOutput out = e.apply(new EngineInput.ClockTick(e.nowMs()));
        final List<Decision> evicted = out.decisions().stream()
                .filter(d -> d.kind() == DecisionKind.EVICTED && d.causedBy().equals("blocked")).toList();
        if (plan == null) {
            assertTrue(evicted.isEmpty());
            return;
        }
        assertEquals(held.keySet(), new TreeSet<>(evicted.stream().map(Decision::jobId).toList()));
        final Decision placed = out.decisions().stream()
                .filter(d -> d.kind() == DecisionKind.PLACED && d.jobId().equals("blocked")).findFirst().orElseThrow();
        assertTrue(placed.reason().message().contains("preempted " + String.join(", ", ids(plan.victims()))),
                placed.reason().message());
        final Set<String> nodes = new TreeSet<>();
        placed.placement().forEach(a -> nodes.add(a.nodeId()));
        for (final Decision d : evicted) {
            assertEquals(ReasonCode.PREEMPTED, d.reason().code());
            assertEquals("blocked", d.reason().evidence().get("by"));
            assertEquals(held.get(d.jobId()), d.placement(), "the decision names what the victim held");
            assertTrue(d.placement().stream().anyMatch(a -> nodes.contains(a.nodeId())),
                    d.jobId() + " held nothing where the job went: evicted in vain");
            final JobView v = e.job(d.jobId()).orElseThrow();
            assertEquals("blocked", v.preemptedBy());
            assertTrue(v.state() == JobState.QUEUED || v.state().holdsResources(), "requeued (and maybe placed again)");
        }
        if (blocked.spec.topologyRequired() && blocked.spec.nodes() > 1
                && blocked.spec.topology().compareTo(GangScope.LEAF) <= 0) {
            assertEquals(1, nodes.stream().map(n -> e.node(n).orElseThrow().leaf()).distinct().count(),
                    "a required leaf is one leaf");
        }
    }

    /** A copy of the scenario's engine running under {@code config} (a snapshot restores under its own settings). */
    private static PoolEngine under(final PoolEngine scenario, final EngineConfig config) {
        final PoolEngine e = PoolEngine.restore(scenario.snapshot(), scenario.config());
        e.reconfigure(config);
        return e;
    }
}
