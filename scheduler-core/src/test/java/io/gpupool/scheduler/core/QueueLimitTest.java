package io.gpupool.scheduler.core;

import static io.gpupool.scheduler.core.Pools.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Load shedding: a pool lets at most {@code max-waiting-jobs} wait, and a submit beyond is REJECTED QUEUE_FULL,
 * saying so, instead of joining a backlog; as jobs leave the queue it takes submits again.
 */
class QueueLimitTest {
    private static PoolEngine pool(final int maxWaiting) {
        return Pools.pool(EngineConfig.fromSettings(Map.of("pool", "p", "stale-telemetry-timeout-ms", "0",
                "max-waiting-jobs", Integer.toString(maxWaiting))), 1, 1, 8);
    }

    private static Decision decide(final PoolEngine e, final long t, final String job) {
        final List<Decision> d = e.apply(submit(t, JobSpec.builder(job).gang(1, 8).build())).decisions().stream()
                .filter(x -> x.jobId().equals(job)).toList();
        assertEquals(1, d.size(), job + ": " + d);
        return d.get(0);
    }

    @Test
    void aSubmitPastTheLimitIsShedAndSaysSoAndTheQueueTakesSubmitsAgainOnceItShortens() {
        final PoolEngine e = pool(2);
        assertEquals(DecisionKind.PLACED, decide(e, 1, "a").kind());
        assertEquals(DecisionKind.QUEUED, decide(e, 2, "b").kind());
        assertEquals(DecisionKind.QUEUED, decide(e, 3, "c").kind());
        final Decision shed = decide(e, 4, "d");
        assertEquals(DecisionKind.REJECTED, shed.kind());
        assertEquals(ReasonCode.QUEUE_FULL, shed.reason().code());
        assertTrue(shed.reason().message().contains("already has 2 waiting jobs, its limit (max-waiting-jobs)"),
                shed.reason().message());
        assertEquals(JobState.REJECTED, e.job("d").orElseThrow().state());

        e.apply(new EngineInput.JobReport(5, "a", EngineInput.JobEventKind.COMPLETED, e.placementOf("a"), "n0-0", ""));
        assertEquals(JobState.PLACED, e.job("b").orElseThrow().state()); // b left the queue for the node
        assertEquals(DecisionKind.QUEUED, decide(e, 6, "e").kind());
    }

    @Test
    void zeroMeansNoLimit() {
        final PoolEngine e = pool(0);
        for (int i = 0; i < 50; i++) {
            assertTrue(decide(e, i + 1, "j" + i).kind() != DecisionKind.REJECTED);
        }
    }

    @Test
    void theLimitIsASettingThatRoundTrips() {
        final EngineConfig c = EngineConfig.fromSettings(Map.of("pool", "p", "max-waiting-jobs", "7"));
        assertEquals(7, c.maxWaitingJobs());
        assertEquals("7", c.toSettings().get("max-waiting-jobs"));
        assertEquals(EngineConfig.DEFAULT_MAX_WAITING_JOBS, EngineConfig.defaults("p").maxWaitingJobs());
    }

    /** Settings journaled (or kept in a snapshot) before the limit existed replay as they ran: without one. */
    @Test
    void recordedSettingsWithoutTheKeyMeanNoLimitAsTheyRan() {
        assertEquals(0, EngineConfig.fromRecordedSettings(Map.of("pool", "p")).maxWaitingJobs());
        assertEquals(9, EngineConfig.fromRecordedSettings(Map.of("pool", "p", "max-waiting-jobs", "9")).maxWaitingJobs());
        final EngineConfig now = EngineConfig.defaults("p");
        assertEquals(now, EngineConfig.fromRecordedSettings(now.toSettings()));
    }
}
