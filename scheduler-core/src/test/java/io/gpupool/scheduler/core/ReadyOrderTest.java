package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The planner keeps each shape's nodes in plan order between plans (ReadyOrder) and works out a
 * node's readiness again only when it changed or its answer ran out: every plan must be the one a
 * walk over every node, with nothing cached, gives. The histories have a standing queue, jobs that
 * overrun their estimates, STARTED reports that move expected ends, and now and then an input that
 * drops the orders.
 */
class ReadyOrderTest {
    private static final List<JobSpec> ASKS = List.of(JobSpec.builder("ask-1").gang(1, 1).build(),
            JobSpec.builder("ask-2").gang(1, 2).cpuMilli(50_000).build(), JobSpec.builder("ask-8").gang(1, 8).build(),
            JobSpec.builder("ask-2x4").gang(2, 4).build(),
            JobSpec.builder("ask-3x8").gang(3, 8).topology(GangScope.LEAF, false).network(Network.INFINIBAND).build());

    @Test
    void keptOrdersPlanWhatAFreshWalkPlans() {
        int compared = 0;
        int reserved = 0;
        for (long seed = 0; seed < 12; seed++) {
            final PoolEngine e = Pools.pool(Pools.config(ScoringPolicy.BEST_FIT), 3, 4, 8);
            final Random r = new Random(seed);
            final List<String> submitted = new ArrayList<>();
            long ts = 1;
            for (int i = 0; i < 400; i++) {
                ts += r.nextInt(700);
                e.apply(RandomStreams.bind(e, next(r, ts, submitted, e)));
                for (final JobSpec ask : ASKS) {
                    final Job job = new Job(ask, -1, ts);
                    final Reservation kept = e.pass().planner().plan(job);
                    for (final NodeState n : e.st.slots) {
                        if (n != null) {
                            Arrays.fill(n.ready, null); // the fresh walk works every node out again
                        }
                    }
                    final Reservation fresh = new ReservationPlanner(e.st, e.placer(), e.pass()::expectedEnd).plan(job);
                    assertEquals(fresh, kept, "seed " + seed + ", input " + i + ", " + ask.jobId());
                    compared++;
                    reserved += fresh == null ? 0 : 1;
                }
            }
        }
        assertTrue(compared == 12 * 400 * ASKS.size() && reserved > compared / 2, reserved + " of " + compared);
    }

    /** Mostly submits and the node side's reports; rarely an input that drops the kept orders. */
    private static EngineInput next(final Random r, final long ts, final List<String> submitted, final PoolEngine e) {
        final int op = r.nextInt(100);
        if (op < 40 || submitted.isEmpty()) {
            final String id = "j" + submitted.size();
            submitted.add(id);
            final int kind = r.nextInt(10);
            final JobSpec.Builder b = JobSpec.builder(id).tenant("t" + r.nextInt(3))
                    .runtimeEstimateMs(r.nextInt(4) == 0 ? 0 : 500 + r.nextInt(5_000));
            if (kind < 6) {
                b.gang(1, 1 + r.nextInt(2));
            } else if (kind < 8) {
                b.gang(1, 8);
            } else {
                b.gang(2, 4 + 4 * r.nextInt(2));
            }
            return new EngineInput.SubmitJob(ts, b.build());
        }
        final String job = submitted.get(r.nextInt(submitted.size()));
        if (op < 60) {
            return new EngineInput.JobReport(ts, job, EngineInput.JobEventKind.STARTED, RandomStreams.CURRENT, "", "");
        }
        if (op < 92) {
            return new EngineInput.JobReport(ts, job, EngineInput.JobEventKind.COMPLETED, RandomStreams.CURRENT, "", "");
        }
        if (op < 95) {
            return new EngineInput.CancelJob(ts, job, "test");
        }
        if (op < 97) {
            return new EngineInput.ClockTick(ts);
        }
        final String node = e.nodes().get(r.nextInt(e.nodes().size())).nodeId();
        return new EngineInput.GpuHealthFact(ts, node, r.nextInt(8), r.nextInt(3) == 0 ? 79 : 0, false, false, false, 50);
    }
}
