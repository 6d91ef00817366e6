package io.gpupool.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** Properties of the queue policy over random workloads driven in simulated time. */
class QueuePolicyPropertiesTest {

    /** With exact runtime estimates, a reserved job starts no later than its first reservation said. */
    @Property(tries = 30)
    void backfillNeverDelaysTheReservedJob(@ForAll final long seed) {
        final Random r = new Random(seed);
        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "preemption", "false")), 1, 2 + r.nextInt(3), 8);
        final List<MiniSim.Arrival> arrivals = new ArrayList<>();
        long t = 0;
        for (int i = 0; i < 60; i++) {
            t += r.nextInt(2_000);
            final long runtime = 1_000 + r.nextInt(20_000);
            final int gpus = r.nextInt(4) == 0 ? 8 : 1 + r.nextInt(4);
            arrivals.add(new MiniSim.Arrival(t, JobSpec.builder("j" + i).gang(1, gpus).runtimeEstimateMs(runtime).build(), runtime));
        }
        final Map<String, Long> promised = new TreeMap<>();
        final MiniSim sim = new MiniSim(e);
        sim.observer = (eng, now) -> eng.reservation().ifPresent(res -> promised.putIfAbsent(res.jobId(), res.startAtMs()));
        sim.run(arrivals, Long.MAX_VALUE);
        assertEquals(arrivals.size(), sim.started.size(), "everything ran");
        promised.forEach((job, at) -> assertTrue(sim.started.get(job) <= at,
                job + " promised " + at + " started " + sim.started.get(job)));
    }

    /** Two tenants with weights 1 and 3 and endless backlogs share GPU-time about 1:3. */
    @Property(tries = 5)
    void fairShareConvergesToTheWeights(@ForAll final long seed) {
        final Random r = new Random(seed);
        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "tenant.light.weight", "1",
                "tenant.heavy.weight", "3", "fair-share-half-life-ms", "200000")), 1, 1, 8);
        final List<MiniSim.Arrival> arrivals = new ArrayList<>();
        // more backlog than the pool can run in the window: both tenants always wait
        for (int i = 0; i < 800; i++) {
            final long runtime = 5_000 + r.nextInt(5_000);
            arrivals.add(new MiniSim.Arrival(0, JobSpec.builder("l" + i).tenant("light").runtimeEstimateMs(runtime).build(), runtime));
            arrivals.add(new MiniSim.Arrival(0, JobSpec.builder("h" + i).tenant("heavy").runtimeEstimateMs(runtime).build(), runtime));
        }
        final MiniSim sim = new MiniSim(e);
        final long[] gpuMs = new long[2];
        final long[] last = {0};
        sim.observer = (eng, now) -> {
            if (now > 60_000) { // after the start-up transient
                final long dt = now - last[0];
                gpuMs[0] += dt * eng.st.fairShare.heldMilli("light") / 1000;
                gpuMs[1] += dt * eng.st.fairShare.heldMilli("heavy") / 1000;
            }
            last[0] = now;
        };
        sim.run(arrivals, 600_000);
        final double lightShare = (double) gpuMs[0] / (gpuMs[0] + gpuMs[1]);
        assertTrue(Math.abs(lightShare - 0.25) < 0.05, "light tenant's share " + lightShare);
    }

    /** Every preemption's victims share nodes with the preemptor's placement, and the preemptor is placed. */
    @Property(tries = 30)
    void preemptionVictimSetsAreConsistent(@ForAll final long seed) {
        final Random r = new Random(seed);
        final PoolEngine e = Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p")), 2, 3, 8);
        final List<MiniSim.Arrival> arrivals = new ArrayList<>();
        long t = 0;
        for (int i = 0; i < 80; i++) {
            t += r.nextInt(3_000);
            final long runtime = 2_000 + r.nextInt(30_000);
            final PriorityClass pc = PriorityClass.values()[r.nextInt(3)];
            final JobSpec.Builder b = JobSpec.builder("j" + i).priorityClass(pc).preemptible(r.nextInt(3) > 0)
                    .runtimeEstimateMs(runtime);
            if (r.nextInt(4) == 0) {
                b.gang(2, 8);
            } else {
                b.gang(1, 1 + r.nextInt(8));
            }
            arrivals.add(new MiniSim.Arrival(t, b.build(), runtime));
        }
        final MiniSim sim = new MiniSim(e);
        sim.run(arrivals, Long.MAX_VALUE);
        final Map<String, List<Decision>> evictionsBy = new TreeMap<>();
        for (final Decision d : sim.decisions) {
            if (d.kind() == DecisionKind.EVICTED && d.reason().code() == ReasonCode.PREEMPTED) {
                evictionsBy.computeIfAbsent(d.causedBy(), k -> new ArrayList<>()).add(d);
            }
        }
        for (int i = 0; i < sim.decisions.size(); i++) {
            final Decision d = sim.decisions.get(i);
            if (d.kind() != DecisionKind.EVICTED || d.reason().code() != ReasonCode.PREEMPTED) {
                continue;
            }
            // the preemptor's PLACED follows in the same burst
            Decision placed = null;
            for (int k = i + 1; k < sim.decisions.size() && placed == null; k++) {
                final Decision n = sim.decisions.get(k);
                if (n.kind() == DecisionKind.PLACED && n.jobId().equals(d.causedBy())) {
                    placed = n;
                }
            }
            assertTrue(placed != null, "preemptor " + d.causedBy() + " was placed");
            final Set<String> nodes = new HashSet<>();
            placed.placement().forEach(a -> nodes.add(a.nodeId()));
            assertTrue(d.placement().stream().anyMatch(a -> nodes.contains(a.nodeId())),
                    "victim " + d.jobId() + " on " + d.placement() + " shares no node with " + placed.placement());
            final Set<String> leaves = new HashSet<>();
            nodes.forEach(n -> leaves.add(e.node(n).map(NodeView::leaf).orElse("?")));
            assertTrue(leaves.size() == 1, "gang placed on one leaf");
        }
    }
}
