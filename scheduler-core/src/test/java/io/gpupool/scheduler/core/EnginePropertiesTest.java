package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Invariants over random pools and random job streams. */
class EnginePropertiesTest {

    private static PoolEngine engine(final int policy) {
        return new PoolEngine(Pools.config(ScoringPolicy.values()[policy]));
    }

    @Property(tries = 60)
    void noOverAllocationGangAtomicityAndHealthyAssignments(@ForAll final long seed, @ForAll @IntRange(max = 2) final int policy) {
        final PoolEngine e = engine(policy);
        for (final EngineInput in : RandomStreams.stream(seed, 300)) {
            final EngineOutput out = e.apply(RandomStreams.bind(e, in));
            for (final Decision d : out.decisions()) {
                if (d.kind() == DecisionKind.PLACED) {
                    final JobSpec s = e.st.job(d.jobId()).spec;
                    assertEquals(s.nodes(), d.placement().size(), "gang placed whole: " + d);
                    assertEquals(s.nodes(), d.placement().stream().map(PlacementPart::nodeId).distinct().count());
                    for (final PlacementPart a : d.placement()) {
                        assertEquals(s.gpusPerNode(), a.gpus().size());
                        final NodeState n = e.st.nodesById.get(a.nodeId());
                        for (final int g : a.gpus()) {
                            assertEquals(0, n.healthBits[g], "unhealthy GPU assigned: " + d);
                        }
                    }
                }
            }
            checkAccounting(e);
        }
    }

    /** Every GPU's use equals the sum of the placements on it; CPU and memory likewise; never over 1000. */
    static void checkAccounting(final PoolEngine e) {
        final PoolState st = e.st;
        for (final NodeState n : st.slots) {
            if (n == null) {
                continue;
            }
            final int[] milli = new int[n.gpuCount];
            final int[] wholeJobs = new int[n.gpuCount];
            final int[] shareJobs = new int[n.gpuCount];
            long cpu = 0;
            long mem = 0;
            for (final Job j : st.activeJobs.values()) {
                for (final PlacementPart a : j.placement) {
                    if (!a.nodeId().equals(n.id())) {
                        continue;
                    }
                    cpu += a.cpuMilli();
                    mem += a.memoryMib();
                    for (final int g : a.gpus()) {
                        milli[g] += a.gpuMilli();
                        if (a.gpuMilli() == 1000) {
                            wholeJobs[g]++;
                        } else {
                            shareJobs[g]++;
                        }
                    }
                }
            }
            for (int g = 0; g < n.gpuCount; g++) {
                assertTrue(milli[g] <= 1000, "GPU over-allocated: " + n.id() + "/" + g);
                assertEquals(milli[g], n.usedMilli[g], "accounting of " + n.id() + "/" + g);
                assertTrue(wholeJobs[g] <= 1 && (wholeJobs[g] == 0 || shareJobs[g] == 0), "whole GPU shared");
            }
            assertEquals(n.spec.cpuMilli() - cpu, n.cpuFree);
            assertEquals(n.spec.memoryMib() - mem, n.memFree);
            assertEquals(n.recountFreeWhole(), n.freeWhole);
        }
    }

    @Property(tries = 40)
    void capacityIsConservedAfterEverythingIsReleased(@ForAll final long seed, @ForAll @IntRange(max = 2) final int policy) {
        final PoolEngine e = engine(policy);
        final List<EngineInput> inputs = RandomStreams.stream(seed, 200);
        long ts = 0;
        for (final EngineInput in : inputs) {
            e.apply(RandomStreams.bind(e, in));
            ts = Math.max(ts, in.timestampMs());
        }
        // cancel everything (repeat: a cancel can place queued jobs)
        for (int round = 0; round < 1000 && !e.st.activeJobs.isEmpty(); round++) {
            e.apply(new EngineInput.CancelJob(++ts, e.st.activeJobs.keySet().iterator().next(), "drain"));
        }
        assertTrue(e.st.activeJobs.isEmpty());
        for (final NodeState n : e.st.slots) {
            if (n != null) {
                assertEquals(n.spec.cpuMilli(), n.cpuFree);
                assertEquals(n.spec.memoryMib(), n.memFree);
                for (int g = 0; g < n.gpuCount; g++) {
                    assertEquals(0, n.usedMilli[g]);
                }
            }
        }
        e.capacity().byModel().values().forEach(c -> {
            assertEquals(0, c.allocated());
            assertEquals(c.allocatable(), c.free());
            assertEquals(c.total(), c.allocatable() + c.unhealthy());
        });
    }

    @Property(tries = 40)
    void sameInputsGiveSameDecisionsAndSnapshotsResumeExactly(@ForAll final long seed,
                                                              @ForAll @IntRange(max = 2) final int policy,
                                                              @ForAll @IntRange(min = 0, max = 250) final int cut) {
        final List<EngineInput> inputs = RandomStreams.stream(seed, 250);
        final List<Decision> first = run(engine(policy), inputs, 0, inputs.size());
        final PoolEngine a = engine(policy);
        final List<Decision> second = run(a, inputs, 0, inputs.size());
        assertEquals(first, second);

        final PoolEngine b = engine(policy);
        final int at = Math.min(cut, inputs.size());
        final List<Decision> resumed = new ArrayList<>(run(b, inputs, 0, at));
        final byte[] snap = b.snapshot();
        final PoolEngine restored = PoolEngine.restore(snap, Pools.config(ScoringPolicy.values()[policy]));
        assertArrayEquals(snap, restored.snapshot(), "same state, same bytes");
        resumed.addAll(run(restored, inputs, at, inputs.size()));
        assertEquals(first, resumed);
        assertArrayEquals(a.snapshot(), restored.snapshot());
    }

    private static List<Decision> run(final PoolEngine e, final List<EngineInput> in, final int from, final int to) {
        final List<Decision> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            final EngineOutput o = e.apply(RandomStreams.bind(e, in.get(i)));
            out.addAll(o.decisions());
        }
        return out;
    }
}
