package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Times and durations at the ends of a long. Most cases wrapped before stream-time arithmetic
 * saturated ({@link StreamTime}) and assert what the wrap got wrong; the others guard validation
 * and settings of "for ever".
 */
class ExtremeTimesTest {
    private static final long HOUR = 3_600_000;

    private static EngineConfig cfg(final String... kv) {
        final Map<String, String> m = new TreeMap<>();
        m.put("pool", "p");
        m.put("stale-telemetry-timeout-ms", "0");
        m.put("preemption", "false");
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return EngineConfig.fromSettings(m);
    }

    private static Decision only(final EngineOutput out, final String jobId) {
        final List<Decision> of = out.decisions().stream().filter(d -> d.jobId().equals(jobId)).toList();
        assertEquals(1, of.size(), "one decision for " + jobId + ": " + out.decisions());
        return of.get(0);
    }

    /** The reviewer's example: {@code nowMs + Long.MAX_VALUE} wrapped below the deadline, so the job was PLACED. */
    @Test
    void reviewerExampleEstimateForeverDeadlineInAnHourRejectIfLateIsRejectedNotPlaced() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 8);
        final long now = 1_000;
        final Decision d = only(e.apply(submit(now, JobSpec.builder("forever").runtimeEstimateMs(Long.MAX_VALUE)
                .deadline(now + HOUR, true).build())), "forever");
        assertEquals(DecisionKind.REJECTED, d.kind(), d.toString());
        assertEquals(ReasonCode.DEADLINE_UNREACHABLE, d.reason().code());
        assertTrue(d.reason().message().endsWith("ends never"), d.reason().message());
        assertEquals(JobState.REJECTED, e.job("forever").orElseThrow().state());
    }

    /** Nonsense times are refused at once, saying which and what, not judged against stream time. */
    @Test
    void aNegativeEstimateOrDeadlineIsRejectedAsInvalidNamingIt() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 8);
        final Decision estimate = only(e.apply(submit(1, JobSpec.builder("e").runtimeEstimateMs(-1).build())), "e");
        assertEquals(DecisionKind.REJECTED, estimate.kind());
        assertEquals(ReasonCode.INVALID_REQUEST, estimate.reason().code());
        assertEquals("runtime estimate must not be negative (0: none given), got -1 ms", estimate.reason().message());
        final Decision deadline = only(e.apply(submit(2, JobSpec.builder("d").deadline(Long.MIN_VALUE + 1, false)
                .build())), "d");
        assertEquals(ReasonCode.INVALID_REQUEST, deadline.reason().code());
        assertEquals("deadline must not be negative (0: none), got stream time " + (Long.MIN_VALUE + 1),
                deadline.reason().message());
    }

    /** The same wrap at a tick: a waiting job estimated for ever was never reported late. */
    @Test
    void aWaitingJobEstimatedForeverIsReportedLateAtTheNextTick() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 8);
        e.apply(submit(1_000, JobSpec.builder("full").gang(1, 8).build()));
        final Decision queued = only(e.apply(submit(2_000, JobSpec.builder("late").gang(1, 8)
                .runtimeEstimateMs(Long.MAX_VALUE).deadline(2_000 + HOUR, false).build())), "late");
        assertEquals(DecisionKind.QUEUED, queued.kind(), "without reject-if-late it waits");
        final Decision tick = only(e.apply(new EngineInput.ClockTick(3_000)), "late");
        assertEquals(DecisionKind.QUEUED, tick.kind());
        assertEquals(ReasonCode.DEADLINE_UNREACHABLE, tick.reason().code());
    }

    /** {@code nowMs + Long.MAX_VALUE} wrapped below the reserved start: the job backfilled onto the reserved node. */
    @Test
    void aJobThatWouldRunForeverDoesNotBackfillOntoTheReservedNode() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 8);
        e.apply(submit(1, JobSpec.builder("run").gang(1, 4).runtimeEstimateMs(10_000).build()));
        e.apply(submit(2, JobSpec.builder("head").gang(1, 8).runtimeEstimateMs(1_000).build()));
        final Reservation r = e.reservation().orElseThrow();
        assertEquals("head", r.jobId());
        assertEquals(10_001, r.startAtMs());
        final Decision forever = only(e.apply(submit(3, JobSpec.builder("forever").gang(1, 4)
                .runtimeEstimateMs(Long.MAX_VALUE).build())), "forever");
        assertEquals(DecisionKind.QUEUED, forever.kind(), forever.toString());
        assertEquals(ReasonCode.RESERVED_FOR_HEAD_OF_QUEUE, forever.reason().code());
        // the control: a job that does end before the reserved start backfills on the same GPUs
        final Decision shortOne = only(e.apply(submit(4, JobSpec.builder("short").gang(1, 4)
                .runtimeEstimateMs(5_000).build())), "short");
        assertEquals(DecisionKind.PLACED, shortOne.kind(), shortOne.toString());
    }

    /**
     * {@code placedAtMs + Long.MAX_VALUE} wrapped, so a job that runs for ever was expected to end now: the
     * head was promised the node that job holds instead of the node that does free up.
     */
    @Test
    void aRunningJobEstimatedForeverIsNotExpectedToFreeItsNode() {
        final PoolEngine e = Pools.pool(cfg(), 1, 2, 8);
        e.apply(submit(1, JobSpec.builder("forever").gang(1, 8).runtimeEstimateMs(Long.MAX_VALUE).build()));
        e.apply(submit(2, JobSpec.builder("run").gang(1, 8).runtimeEstimateMs(10_000).build()));
        final String runsOn = e.job("run").orElseThrow().placement().get(0).nodeId();
        e.apply(submit(3, JobSpec.builder("head").gang(1, 8).build()));
        final Reservation r = e.reservation().orElseThrow();
        assertEquals(List.of(runsOn), r.nodes());
        assertEquals(2 + 10_000, r.startAtMs());
    }

    /**
     * Near the end of time a running job's end ({@code placedAtMs + estimate}) wrapped to "long ago", so the
     * head was promised the job's node at once: ending past the end of time, it frees the node never.
     */
    @Test
    void aJobEndingPastTheEndOfTimeIsNotExpectedToFreeItsNode() {
        final PoolEngine e = Pools.pool(cfg(), 1, 1, 8);
        final long late = Long.MAX_VALUE - 1_000;
        e.apply(submit(late, JobSpec.builder("run").gang(1, 4).runtimeEstimateMs(HOUR).build()));
        final Decision head = only(e.apply(submit(late, JobSpec.builder("head").gang(1, 8).build())), "head");
        assertEquals(DecisionKind.QUEUED, head.kind());
        assertTrue(e.reservation().isEmpty(), "no start can be promised: " + e.reservation());
    }

    /** {@code startAtMs + OVERDUE_GRACE_MS} wrapped negative: every later input dropped the plan as overdue. */
    @Test
    void aStandingPlanWhoseStartSaturatedIsNeverOverdue() {
        final StandingPlans plans = new StandingPlans();
        final JobSpec shape = JobSpec.builder("head").gang(1, 8).build();
        plans.put(shape, StreamTime.NEVER, List.of("n0-0"));
        assertNotNull(plans.get(shape, 0));
        assertNotNull(plans.get(shape, Long.MAX_VALUE - 1));
    }

    /** A cooldown and window of "for ever": a moved job is never moved again, and the pool's moves never expire. */
    @Test
    void consolidationCooldownAndWindowOfForeverHold() {
        final PoolEngine e = new PoolEngine(cfg("consolidation-max-evictions", "2",
                "consolidation-cooldown-ms", Long.toString(Long.MAX_VALUE),
                "consolidation-window-ms", Long.toString(Long.MAX_VALUE),
                "consolidation-window-max-evictions", "1"));
        // the churn workload of ConsolidationChurnTest: each waiting job would move the other back
        final List<EngineInput> in = new ArrayList<>(List.of(
                new EngineInput.NodeUpsert(0, Pools.node("n0-0", "l0", 8)),
                new EngineInput.NodeUpsert(0, Pools.node("n0-1", "l0", 8)),
                submit(1_000, JobSpec.builder("pin").gang(1, 4).build()),
                submit(2_000, JobSpec.builder("v").preemptible(true).gang(1, 6).build()),
                submit(3_000, JobSpec.builder("x").preemptible(true).gang(1, 6).build())));
        for (long t = 60_000; t <= 6 * HOUR; t += 60_000) {
            in.add(new EngineInput.ClockTick(t));
        }
        int moves = 0;
        for (final EngineInput i : in) {
            for (final Decision d : e.apply(i).decisions()) {
                if (d.kind() == DecisionKind.EVICTED) {
                    moves++;
                }
            }
        }
        // "never moved" (Long.MIN_VALUE) does not read as "moved just now": the first move happens
        assertEquals(1, moves, "the pool's budget of one move per 'for ever' allows exactly one");
    }
}
