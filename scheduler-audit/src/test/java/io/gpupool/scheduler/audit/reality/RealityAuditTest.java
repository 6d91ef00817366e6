package io.gpupool.scheduler.audit.reality;

import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

import static io.gpupool.avro.JobEventType.COMPLETED;
import static io.gpupool.avro.JobEventType.EVICTED;
import static io.gpupool.avro.JobEventType.RELEASED;
import static io.gpupool.avro.JobEventType.STARTED;
import static io.gpupool.avro.NodeCommandType.EVICT;
import static io.gpupool.avro.NodeCommandType.RELEASE;
import static io.gpupool.scheduler.audit.reality.SinkScript.at;
import static io.gpupool.scheduler.audit.reality.SinkScript.gpu;
import static org.assertj.core.api.Assertions.assertThat;

/** The reality check on hand-built sink histories: each finding, and the histories that must not give one. */
class RealityAuditTest {

    private static RealityReport check(final SinkScript s) {
        return check(s.history(), null, RealityWindow.ALL);
    }

    private static RealityReport check(final SinkHistory h, final String pool, final RealityWindow window) {
        return new RealityAudit(h, pool, RealityAudit.DEFAULT_GRACE).check(window);
    }

    private static String printed(final RealityReport r) {
        final StringWriter out = new StringWriter();
        r.printFindings(new PrintWriter(out, true));
        return out.toString();
    }

    /** One job on a whole GPU, run to completion and released; then the next job on the same GPU. */
    private static SinkScript twoJobsOneAfterTheOther(final SinkScript s) {
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        s.applied(a, 1).part(STARTED, a, 2).part(COMPLETED, a, 10);
        final NodeCommand r = s.stop(RELEASE, "j1", "d2", "d1", "n1", 10);
        s.applied(r, 11);
        final NodeCommand b = s.allocate("j2", "d3", "n1", 10, gpu("GPU-1", 1000));
        return s.applied(b, 11).part(STARTED, b, 11).part(COMPLETED, b, 200);
    }

    @Test
    void aCleanHistoryHasNoFindings() {
        final RealityReport r = check(twoJobsOneAfterTheOther(new SinkScript()));
        assertThat(r.checked()).isTrue();
        assertThat(r.summary()).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
        assertThat(r.clean()).isTrue();
        assertThat(printed(r)).startsWith("reality: 3 node commands and 7 job events read (all pools); judged from"
                + " the start of the history to the end of the history\n");
    }

    @Test
    void twoWholeGpuPartsRunningAtOnceOverallocateTheGpu() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000), gpu("GPU-2", 1000));
        final NodeCommand b = s.allocate("j2", "d2", "n1", 4, gpu("GPU-1", 1000));
        s.applied(a, 1).part(STARTED, a, 2).applied(b, 4).part(STARTED, b, 5).part(COMPLETED, b, 15)
                .part(COMPLETED, a, 30);
        final RealityReport r = check(s);
        assertThat(r.summary()).isEqualTo("overallocated_gpus=1 orphan_parts=0 unapplied_commands=0");
        final OverallocatedGpu o = r.overallocated().get(0);
        assertThat(o.gpu()).isEqualTo("GPU-1");
        assertThat(o.worstMilli()).isEqualTo(2000);
        assertThat(o.worstAtMs()).isEqualTo(at(5));
        assertThat(o.overGpuSeconds()).isEqualTo(10.0);
        assertThat(o.parts()).extracting(RunningShare::jobId).containsExactly("j1", "j2");
        assertThat(printed(r)).contains("overallocated GPU GPU-1 on node n1: 2000 milli-GPU running at"
                + " 2025-03-01T12:00:05Z, 10.000 GPU-seconds over; job j1 placement d1 1000 milli running from"
                + " 2025-03-01T12:00:02Z to 2025-03-01T12:00:30Z; job j2 placement d2 1000 milli running from"
                + " 2025-03-01T12:00:05Z to 2025-03-01T12:00:15Z");
    }

    /**
     * A current sink reports every part's end: an EVICT that was applied but whose part never reported
     * EVICTED (the stop failed, the process lives on) leaves the part running, so the part the
     * scheduler placed next on the GPU overlaps it.
     */
    @Test
    void aStopAppliedButNeverReportedGoneLeavesThePartRunning() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        final NodeCommand evict = s.stop(EVICT, "j1", "d2", "d1", "n1", 4);
        final NodeCommand b = s.allocate("j2", "d3", "n1", 4, gpu("GPU-1", 1000));
        s.applied(a, 1).part(STARTED, a, 2).applied(evict, 5).applied(b, 5).part(STARTED, b, 6).part(COMPLETED, b, 20);
        assertThat(check(s).summary()).isEqualTo("overallocated_gpus=1 orphan_parts=0 unapplied_commands=0");
        // once the sink reports the old part gone before the new one started, nothing overlaps
        s.part(EVICTED, evict, "d1", 5.5);
        assertThat(check(s).summary()).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
    }

    @Test
    void halfGpuSharesFitTwiceNotThreeTimes() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 500));
        final NodeCommand b = s.allocate("j2", "d2", "n1", 0, gpu("GPU-1", 500));
        s.applied(a, 1).applied(b, 1).part(STARTED, a, 2).part(STARTED, b, 2).part(COMPLETED, a, 20)
                .part(COMPLETED, b, 20);
        assertThat(check(s).summary()).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");

        final NodeCommand c = s.allocate("j3", "d3", "n1", 5, gpu("GPU-1", 500));
        s.applied(c, 6).part(STARTED, c, 6).part(COMPLETED, c, 10);
        final RealityReport r = check(s);
        assertThat(r.summary()).isEqualTo("overallocated_gpus=1 orphan_parts=0 unapplied_commands=0");
        assertThat(r.overallocated().get(0).worstMilli()).isEqualTo(1500);
        assertThat(r.overallocated().get(0).overGpuSeconds()).isEqualTo(2.0); // half a GPU too much for 4 s
    }

    @Test
    void aPartEndingWhenTheNextStartsDoesNotOverlapIt() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        final NodeCommand b = s.allocate("j2", "d2", "n1", 0, gpu("GPU-1", 1000));
        s.applied(a, 1).part(STARTED, a, 2).applied(b, 3).part(STARTED, b, 10).part(COMPLETED, a, 10)
                .part(COMPLETED, b, 20);
        assertThat(check(s).overallocatedGpus()).isZero();
    }

    /**
     * Job j evicted from GPU-1 (placement A) and placed there again (B). A's EVICTED, seen by the sink
     * before B started, reaches the topic after B's STARTED: it still ends A before B began.
     */
    private static SinkScript lateEvictedOfAnEarlierPlacement(final SinkScript s) {
        final NodeCommand a = s.allocate("j", "A", "n1", 0, gpu("GPU-1", 1000));
        s.applied(a, 1).part(STARTED, a, 2);
        final NodeCommand evict = s.stop(EVICT, "j", "E", "A", "n1", 10);
        s.applied(evict, 11);
        final NodeCommand b = s.allocate("j", "B", "n1", 13, gpu("GPU-1", 1000));
        s.applied(b, 14).part(STARTED, b, 15);
        s.part(EVICTED, evict, "A", 12); // late: written after B's STARTED
        return s.part(COMPLETED, b, 100);
    }

    @Test
    void aLateEvictedOfAnEarlierPlacementEndsThatPlacementNotTheCurrentOne() {
        final RealityReport r = check(lateEvictedOfAnEarlierPlacement(new SinkScript()));
        assertThat(r.summary()).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
        // the same records arriving in any interleaving tell the same story
        final SinkScript s = lateEvictedOfAnEarlierPlacement(new SinkScript());
        final Random rnd = new Random(7);
        for (int i = 0; i < 20; i++) {
            final List<ReportedEvent> shuffled = new ArrayList<>();
            int offset = 0;
            final List<ReportedEvent> copy = new ArrayList<>(s.events());
            Collections.shuffle(copy, rnd);
            for (final ReportedEvent e : copy) {
                shuffled.add(new ReportedEvent(0, offset++, e.event()));
            }
            assertThat(check(SinkHistory.complete(s.commands(), shuffled), null, RealityWindow.ALL).summary())
                    .isEqualTo(r.summary());
        }
    }

    @Test
    void aPartsEventsCountInTheOrderTheyHappenedNotTheOrderTheyArrived() {
        // j1's COMPLETED arrives before its STARTED; taken in arrival order, j1 would end before it began
        // and the 3 s it shared GPU-1 with j2 would be missed
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        final NodeCommand b = s.allocate("j2", "d2", "n1", 0, gpu("GPU-1", 1000));
        s.applied(a, 1).part(COMPLETED, a, 10).part(STARTED, a, 2);
        s.applied(b, 1).part(STARTED, b, 7).part(COMPLETED, b, 20);
        final RealityReport r = check(s);
        assertThat(r.overallocatedGpus()).isEqualTo(1);
        assertThat(r.overallocated().get(0).overGpuSeconds()).isEqualTo(3.0);
    }

    @Test
    void eventsAboutWhatWasNeverCommandedAreOrphanParts() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        s.applied(a, 1).part(STARTED, a, 2).part(COMPLETED, a, 100);
        assertThat(check(s).orphanParts()).isZero();
        s.event(STARTED, a, "ghost", "n1", 5); // a placement never allocated
        final RealityReport r = check(s);
        assertThat(r.summary()).isEqualTo("overallocated_gpus=0 orphan_parts=1 unapplied_commands=0");
        assertThat(printed(r)).contains("orphan part: job j1 placement ghost on node n1 at 2025-03-01T12:00:05Z:"
                + " reported STARTED, but no ALLOCATE of this placement was sent to this node");
        s.event(STARTED, a, "d1", "n2", 6); // the placement, on a node it was never given
        final JobEvent unknown = JobEvent.newBuilder().setJobId("j9").setEventId("x").setType(STARTED)
                .setCommandId("never-sent/n1").setOccurredAt(Instant.ofEpochMilli(at(7))).build();
        s.report(unknown);
        final RealityReport more = check(s);
        assertThat(more.orphanParts()).isEqualTo(3);
        assertThat(printed(more)).contains("job j1 placement d1 on node n2", "job j9 placement (none named) on node"
                + " (none named) at 2025-03-01T12:00:07Z: reported STARTED, but it names command never-sent/n1, which was"
                + " never sent");
    }

    @Test
    void aPartStartedAfterItsReleaseWasAppliedRunsOnAsAnOrphanAndOverlapsTheNext() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        final NodeCommand release = s.stop(RELEASE, "j1", "d2", "d1", "n1", 2);
        s.applied(a, 1).applied(release, 3).part(STARTED, a, 4);
        final NodeCommand b = s.allocate("j2", "d3", "n1", 3, gpu("GPU-1", 1000));
        s.applied(b, 4).part(STARTED, b, 5).part(COMPLETED, b, 100);
        final RealityReport r = check(s);
        assertThat(r.summary()).isEqualTo("overallocated_gpus=1 orphan_parts=1 unapplied_commands=0");
        assertThat(printed(r)).contains("orphan part: job j1 placement d1 on node n1 GPUs [GPU-1] at"
                + " 2025-03-01T12:00:04Z: reported STARTED after its allocation ended (APPLIED of RELEASE d2/n1 at"
                + " 2025-03-01T12:00:03Z) and never reported its end");
        // had it reported its end, it was a start the stop raced with: neither finding
        s.part(RELEASED, a, 4.5);
        assertThat(check(s).summary()).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
    }

    @Test
    void aRunningPartStoppedByAnAppliedReleaseEndsThereWhenTheSinkReportsNoEnd() {
        // sinks from before RELEASED: the APPLIED of the RELEASE is all there is
        final SinkScript s = new SinkScript().old();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        s.applied(a, 1).part(STARTED, a, 2);
        final NodeCommand release = s.stop(RELEASE, "j1", "d2", "d1", "n1", 9);
        s.applied(release, 10);
        final NodeCommand b = s.allocate("j2", "d3", "n1", 10, gpu("GPU-1", 1000));
        s.applied(b, 11).part(STARTED, b, 11).part(COMPLETED, b, 100);
        assertThat(check(s).summary()).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
    }

    @Test
    void aCommandNeverAppliedIsUnappliedUnlessItIsTooRecent() {
        final SinkScript s = twoJobsOneAfterTheOther(new SinkScript()); // history ends at 200 s
        final NodeCommand lost = s.allocate("j3", "d4", "n2", 30, gpu("GPU-7", 1000));
        s.allocate("j4", "d5", "n3", 150, gpu("GPU-8", 1000)); // within 60 s of the end: the sink may still answer
        final RealityReport r = check(s);
        assertThat(r.summary()).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=1");
        assertThat(r.unapplied()).extracting(u -> u.command().getCommandId()).containsExactly(lost.getCommandId());
        assertThat(printed(r)).contains("unapplied command d4/n2: ALLOCATE of job j3 placement d4 to node n2 GPUs"
                        + " [GPU-7] issued at 2025-03-01T12:00:30Z: no APPLIED event",
                "1 commands without an APPLIED event were issued in the last 60s of the history (after"
                        + " 2025-03-01T12:02:20Z): not counted");
        // a shorter grace counts it too
        assertThat(new RealityAudit(s.history(), null, Duration.ofSeconds(10)).check(RealityWindow.ALL)
                .unappliedCommands()).isEqualTo(2);
    }

    @Test
    void anAppliedEvictWhosePartNeverReportedEvictedIsApplied() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        final NodeCommand evict = s.stop(EVICT, "j1", "e1", "d1", "n1", 5);
        s.applied(a, 1).part(STARTED, a, 2).applied(evict, 6);
        final NodeCommand b = s.allocate("j2", "d2", "n1", 7, gpu("GPU-1", 1000));
        s.applied(b, 8).part(STARTED, b, 8).part(COMPLETED, b, 200);
        // applied, so not unapplied; that its part never reported gone is what overallocates the GPU
        // (aStopAppliedButNeverReportedGoneLeavesThePartRunning)
        assertThat(check(s).unappliedCommands()).isZero();
    }

    @Test
    void oldRecordsWithoutPlacementIdsAreJudgedByTheCommandsTheyName() {
        final RealityReport late = check(lateEvictedOfAnEarlierPlacement(new SinkScript().old()));
        assertThat(late.summary()).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
        assertThat(check(twoJobsOneAfterTheOther(new SinkScript().old())).clean()).isTrue();

        final SinkScript s = new SinkScript().old();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        final NodeCommand b = s.allocate("j2", "d2", "n1", 4, gpu("GPU-1", 1000));
        s.applied(a, 1).part(STARTED, a, 2).applied(b, 4).part(STARTED, b, 5).part(COMPLETED, b, 15);
        final RealityReport r = check(s);
        assertThat(r.summary()).isEqualTo("overallocated_gpus=1 orphan_parts=0 unapplied_commands=0");
        assertThat(r.overallocated().get(0).parts()).extracting(p -> p.part().placementId()).containsExactly("d1", "d2");
    }

    @Test
    void aGpuWithoutUuidIsItsNodeAndIndex() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, new GpuAssignment("", 3, 1000));
        final NodeCommand b = s.allocate("j2", "d2", "n1", 0, new GpuAssignment("", 3, 1000));
        final NodeCommand c = s.allocate("j3", "d3", "n2", 0, new GpuAssignment("", 3, 1000));
        s.applied(a, 1).applied(b, 1).applied(c, 1).part(STARTED, a, 2).part(STARTED, b, 2).part(STARTED, c, 2)
                .part(COMPLETED, a, 9).part(COMPLETED, b, 9).part(COMPLETED, c, 9);
        final RealityReport r = check(s);
        assertThat(r.overallocatedGpus()).isEqualTo(1);
        assertThat(r.overallocated().get(0).gpu()).isEqualTo("n1/3");
    }

    @Test
    void aPoolAndAWindowRestrictWhatIsJudged() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        final NodeCommand b = s.allocate("j2", "d2", "n1", 0, gpu("GPU-1", 1000));
        s.applied(a, 1).applied(b, 1).part(STARTED, a, 2).part(STARTED, b, 2).part(COMPLETED, a, 10)
                .part(COMPLETED, b, 10);
        s.pool("q");
        final NodeCommand other = s.allocate("k1", "q1", "m1", 20, gpu("GPU-9", 1000)); // pool q, never applied
        s.event(STARTED, other, "q-ghost", "m1", 30); // about pool q's node: q's orphan
        s.applied(s.allocate("k2", "q2", "m1", 300, gpu("GPU-9", 1000)), 301);
        final SinkHistory h = s.history();
        assertThat(check(h, null, RealityWindow.ALL).summary())
                .isEqualTo("overallocated_gpus=1 orphan_parts=1 unapplied_commands=1");
        assertThat(check(h, "p", RealityWindow.ALL).summary())
                .isEqualTo("overallocated_gpus=1 orphan_parts=0 unapplied_commands=0");
        assertThat(check(h, "q", RealityWindow.ALL).summary())
                .isEqualTo("overallocated_gpus=0 orphan_parts=1 unapplied_commands=1");
        // from 15 s on: the overlap (2..10 s) is before the window; from 5 s it is judged for what lies inside
        assertThat(check(h, null, new RealityWindow(at(15), Long.MAX_VALUE)).summary())
                .isEqualTo("overallocated_gpus=0 orphan_parts=1 unapplied_commands=1");
        final RealityReport from5 = check(h, "p", new RealityWindow(at(5), Long.MAX_VALUE));
        assertThat(from5.overallocated().get(0).overGpuSeconds()).isEqualTo(5.0);
        assertThat(from5.overallocated().get(0).worstAtMs()).isEqualTo(at(5));
        assertThat(check(h, null, new RealityWindow(Long.MIN_VALUE, at(25))).summary())
                .isEqualTo("overallocated_gpus=1 orphan_parts=0 unapplied_commands=1");
    }

    @Test
    void whatRetentionMayHaveDeletedIsNotJudged() {
        final SinkScript s = new SinkScript();
        final NodeCommand a = s.allocate("j1", "d1", "n1", 0, gpu("GPU-1", 1000));
        s.applied(a, 1).part(STARTED, a, 2).part(COMPLETED, a, 200);
        s.event(STARTED, a, "deleted", "n1", 100); // its ALLOCATE may have been deleted
        s.allocate("j2", "d2", "n2", 50, gpu("GPU-2", 1000)); // never applied, before the events kept
        final SinkHistory complete = s.history();
        assertThat(check(complete, null, RealityWindow.ALL).summary())
                .isEqualTo("overallocated_gpus=0 orphan_parts=1 unapplied_commands=1");
        final SinkHistory truncated = new SinkHistory(complete.commands(), complete.events(), at(0), at(60));
        final RealityReport r = check(truncated, null, RealityWindow.ALL);
        assertThat(r.summary()).isEqualTo("overallocated_gpus=0 orphan_parts=0 unapplied_commands=0");
        assertThat(printed(r)).contains("nor 1 events naming commands it does not hold",
                "the job-events topic holds events from 2025-03-01T12:01:00Z on");
    }

    @Test
    void withoutTheSinkHistoryNothingIsChecked() {
        assertThat(RealityAudit.NONE.check(RealityWindow.ALL).checked()).isFalse();
        final RealityReport r = RealityAudit.notChecked("topic t does not exist").check(RealityWindow.ALL);
        assertThat(r.checked()).isFalse();
        assertThat(r.clean()).isTrue();
        assertThat(printed(r)).isEqualTo("reality not checked: topic t does not exist\n");
    }
}
