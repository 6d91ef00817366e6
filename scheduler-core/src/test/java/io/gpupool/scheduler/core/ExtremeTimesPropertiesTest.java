package io.gpupool.scheduler.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Invariants with times and durations at the ends of a long: runtime estimates of 0, 1,
 * {@code Long.MAX_VALUE} and its half; deadlines of {@code Long.MIN_VALUE + 1}, 0,
 * {@code Long.MAX_VALUE} and just ahead or behind; stream time starting near 0, near
 * {@code Long.MAX_VALUE / 2} or a day before the end of time, ending with a tick at the very end;
 * cooldown, window, stale timeout, default runtime and half-life up to {@code Long.MAX_VALUE}.
 * The oracles use exact arithmetic, never the engine's.
 */
class ExtremeTimesPropertiesTest {
    private static final long MAX = Long.MAX_VALUE;
    private static final long HOUR = 3_600_000;

    private static final long[] ESTIMATES = {0, 1, MAX, MAX / 2, 1_000, HOUR};
    private static final long[] STARTS = {0, 1, MAX / 2 - HOUR, MAX / 2, MAX - 24 * HOUR};
    private static final String[] LONG_SETTINGS = {"0", "1", "60000", Long.toString(MAX)};

    /** A pool, a config and a stream of inputs, all from one seed. */
    private record Run(EngineConfig cfg, List<EngineInput> inputs) {
    }

    private static <T> T pick(final Random r, final List<T> of) {
        return of.get(r.nextInt(of.size()));
    }

    private static long pick(final Random r, final long[] of) {
        return of[r.nextInt(of.length)];
    }

    /** {@code ts + step} for the generator, kept inside a long (the engine's own helper is not trusted here). */
    private static long later(final long ts, final long step) {
        return ts > MAX - step ? MAX : ts + step;
    }

    private static Run run(final long seed) {
        final Random r = new Random(seed);
        final Map<String, String> s = new TreeMap<>();
        s.put("pool", "p");
        s.put("preemption", Boolean.toString(r.nextBoolean()));
        s.put("consolidation-max-evictions", r.nextBoolean() ? "0" : "2");
        s.put("consolidation-cooldown-ms", LONG_SETTINGS[r.nextInt(4)]);
        s.put("consolidation-window-ms", LONG_SETTINGS[1 + r.nextInt(3)]);
        s.put("consolidation-window-max-evictions", r.nextBoolean() ? "0" : "3");
        s.put("stale-telemetry-timeout-ms", LONG_SETTINGS[r.nextInt(4)]);
        s.put("default-runtime-ms", LONG_SETTINGS[1 + r.nextInt(3)]);
        s.put("fair-share-half-life-ms", LONG_SETTINGS[1 + r.nextInt(3)]);
        final EngineConfig cfg = EngineConfig.fromSettings(s);

        final List<EngineInput> in = new ArrayList<>();
        long ts = pick(r, STARTS);
        final List<String> nodes = List.of("n0-0", "n0-1", "n1-0", "n1-1");
        for (final String n : nodes) {
            in.add(new EngineInput.NodeUpsert(ts, Pools.node(n, "l" + n.charAt(1), 8)));
        }
        int jobs = 0;
        for (int i = 0; i < 160; i++) {
            ts = later(ts, r.nextInt(20) == 0 ? pick(r, new long[] {HOUR, MAX / 4}) : r.nextInt(2_000));
            final int op = r.nextInt(100);
            if (op < 45) {
                final JobSpec.Builder b = JobSpec.builder("j" + jobs++).tenant("t" + r.nextInt(3)).name("n" + r.nextInt(2))
                        .priorityClass(PriorityClass.values()[r.nextInt(3)]).preemptible(r.nextBoolean())
                        .runtimeEstimateMs(pick(r, ESTIMATES));
                switch (r.nextInt(5)) {
                    case 0 -> b.gang(1, 1);
                    case 1 -> b.gang(1, 4);
                    case 2 -> b.gang(1, 8);
                    case 3 -> b.gang(2, 8).topology(GangScope.LEAF, r.nextBoolean());
                    default -> b.share(500, 0);
                }
                final long deadline = pick(r, new long[] {Long.MIN_VALUE + 1, 0, MAX, later(ts, HOUR), later(ts, 1),
                        ts - 1, 1});
                b.deadline(deadline, r.nextBoolean());
                in.add(new EngineInput.SubmitJob(ts, b.build()));
            } else if (op < 70) {
                // about recent jobs mostly, so that events find them live
                final String job = "j" + Math.max(0, jobs - 1 - r.nextInt(8));
                final EngineInput.JobEventKind kind = r.nextInt(3) == 0 ? EngineInput.JobEventKind.STARTED
                        : EngineInput.JobEventKind.COMPLETED;
                in.add(new EngineInput.JobReport(ts, job, kind, RandomStreams.CURRENT, "", ""));
            } else if (op < 76) {
                in.add(new EngineInput.CancelJob(ts, "j" + r.nextInt(Math.max(1, jobs)), "test"));
            } else if (op < 88) {
                in.add(new EngineInput.NodeHeartbeat(ts, pick(r, nodes)));
            } else {
                in.add(new EngineInput.ClockTick(ts));
            }
        }
        in.add(new EngineInput.ClockTick(MAX));
        return new Run(cfg, in);
    }

    /** Exactly (not saturated): does {@code from + duration} exceed {@code limit}? */
    private static boolean exceeds(final long from, final long duration, final long limit) {
        try {
            return Math.addExact(from, duration) > limit;
        } catch (ArithmeticException past) {
            return true; // durations are not negative here: past Long.MAX_VALUE, so past any limit
        }
    }

    @Property(tries = 80)
    void noExceptionNoGpuOverFullLateJobsRejectedAndReservationsHold(@ForAll final long seed) {
        final Run run = run(seed);
        final PoolEngine e = new PoolEngine(run.cfg());
        final Set<String> neverToPlace = new TreeSet<>();
        long now = 0;
        for (final EngineInput in : run.inputs()) {
            now = Math.max(now, in.timestampMs());
            final EngineOutput out = e.apply(RandomStreams.bind(e, in));
            if (in instanceof EngineInput.SubmitJob submit) {
                final JobSpec s = submit.job();
                final boolean nonsense = s.deadlineMs() < 0;
                final boolean late = s.deadlineMs() > 0 && s.rejectIfLate() && s.runtimeEstimateMs() > 0
                        && exceeds(now, s.runtimeEstimateMs(), s.deadlineMs());
                if (nonsense || late) {
                    neverToPlace.add(s.jobId());
                    final List<Decision> of = out.decisions().stream().filter(d -> d.jobId().equals(s.jobId())).toList();
                    assertEquals(1, of.size(), s + ": " + of);
                    assertEquals(DecisionKind.REJECTED, of.get(0).kind(), "now " + now + ", " + s + ": " + of.get(0));
                }
            }
            for (final Decision d : out.decisions()) {
                assertTrue(d.kind() != DecisionKind.PLACED || !neverToPlace.contains(d.jobId()), "placed: " + d);
            }
            for (final NodeView n : e.nodes()) {
                for (final GpuView g : n.gpus()) {
                    assertTrue(g.usedMilli() >= 0 && g.usedMilli() <= 1000, n.nodeId() + " GPU " + g.index() + ": " + g);
                }
            }
            EnginePropertiesTest.checkAccounting(e);
            if (out.decisions().stream().noneMatch(d -> d.kind() == DecisionKind.EVICTED)) {
                checkReservationHolds(e);
            }
        }
    }

    /**
     * The promise of the reservation standing after a pass: if every running job ends as estimated,
     * the reserved whole-GPU job fits its reserved nodes at its start. A job that backfilled onto them
     * although it would not have ended by then (a saturated end never has) breaks it. Checked only
     * after inputs that evicted nothing (a preemption in the pass may take reserved nodes, replanned
     * in its next round).
     */
    private static void checkReservationHolds(final PoolEngine e) {
        final Optional<Reservation> r = e.reservation();
        if (r.isEmpty()) {
            return;
        }
        final Job head = e.st.job(r.get().jobId());
        if (head == null || head.state != JobState.QUEUED || head.spec.isShare() || head.spec.gpusPerNode() == 0) {
            return;
        }
        final long start = r.get().startAtMs();
        assertEquals(head.spec.nodes(), r.get().nodes().size(), r.toString());
        for (final String id : r.get().nodes()) {
            final NodeState n = e.st.nodesById.get(id);
            final int[] used = n.usedMilli.clone();
            for (final Job j : n.jobs) {
                // the earliest end any plan may have counted on: from placement, or from a start reported before it
                final long from = j.startedAtMs > 0 ? Math.min(j.placedAtMs, j.startedAtMs) : j.placedAtMs;
                if (!exceeds(from, j.estimatedRuntimeMs, start)) {
                    for (int p = 0; p < j.slots.length; p++) {
                        if (j.slots[p] == n.slot) {
                            for (final int g : j.placement.get(p).gpus()) {
                                used[g] -= j.placement.get(p).gpuMilli();
                            }
                        }
                    }
                }
            }
            int free = 0;
            for (int g = 0; g < n.gpuCount; g++) {
                if (used[g] == 0 && n.healthBits[g] == 0) {
                    free++;
                }
            }
            assertTrue(free >= head.spec.gpusPerNode(), "reservation " + r.get() + " for " + head.spec
                    + " does not hold on " + id + " at " + start + ": " + free + " GPUs free; jobs there "
                    + n.jobs.stream().map(j -> j.id() + "@" + j.placedAtMs + "+" + j.estimatedRuntimeMs).toList());
        }
    }

    @Property(tries = 40)
    void sameInputsGiveSameDecisionsAndSnapshotBytesAndASnapshotResumesExactly(
            @ForAll final long seed, @ForAll @IntRange(min = 0, max = 170) final int cut) {
        final Run run = run(seed);
        final PoolEngine a = new PoolEngine(run.cfg());
        final PoolEngine b = new PoolEngine(run.cfg());
        final List<EngineOutput> first = apply(a, run.inputs(), 0, run.inputs().size());
        final List<EngineOutput> second = apply(b, run.inputs(), 0, run.inputs().size());
        assertEquals(first, second);
        assertArrayEquals(a.snapshot(), b.snapshot(), "same inputs, same bytes");

        final int at = Math.min(cut, run.inputs().size());
        final PoolEngine c = new PoolEngine(run.cfg());
        final List<EngineOutput> resumed = new ArrayList<>(apply(c, run.inputs(), 0, at));
        final PoolEngine restored = PoolEngine.restore(c.snapshot(), run.cfg());
        resumed.addAll(apply(restored, run.inputs(), at, run.inputs().size()));
        assertEquals(first, resumed);
        assertArrayEquals(a.snapshot(), restored.snapshot(), "restored at " + at + ", same end state");
    }

    /**
     * Found by CI: a node whose readiness was too far ahead to plan with stayed out of the ready order after
     * stream time came near enough, while a restored engine (a fresh order) planned with it.
     */
    @Example
    void aNodeTooFarAheadForAPlanComesIntoItAsTimeGoesOnAsInARestoredEngine() {
        sameInputsGiveSameDecisionsAndSnapshotBytesAndASnapshotResumesExactly(-3632547432L, 61);
    }

    /** Found by a local run: a job that never ends backfilled onto a node reserved for the queue's head. */
    @Example
    void aReservationFoundAfterTimeJumpedHolds() {
        noExceptionNoGpuOverFullLateJobsRejectedAndReservationsHold(21995817801906L);
    }

    private static List<EngineOutput> apply(final PoolEngine e, final List<EngineInput> in, final int from, final int to) {
        final List<EngineOutput> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(e.apply(RandomStreams.bind(e, in.get(i))));
        }
        return out;
    }
}
