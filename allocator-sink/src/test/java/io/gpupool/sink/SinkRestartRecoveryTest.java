package io.gpupool.sink;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import io.gpupool.sink.apply.CommandTemplate;
import io.gpupool.sink.apply.ExecApplier;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.ProcessTree;
import io.gpupool.sink.apply.SimulatedApplier;
import io.gpupool.sink.ledger.AppliedLedger;
import io.gpupool.sink.ledger.LedgerEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

import static io.gpupool.sink.SinkTestKit.allocate;
import static io.gpupool.sink.SinkTestKit.count;
import static io.gpupool.sink.SinkTestKit.has;
import static io.gpupool.sink.SinkTestKit.stop;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sink stopped and started again on the same ledger picks up what was running: a simulated job
 * finishes its remaining time, a real process is adopted and can still be evicted. Also: RELEASE
 * of a gang member still running stops it and reports RELEASED, not an eviction.
 */
@ExtendWith(LocalStackExtension.class)
@Execution(ExecutionMode.CONCURRENT)
class SinkRestartRecoveryTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aRestartedSinkResumesSimulatedJobs(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            final SinkConfig config = kit.config(dir.resolve("state"));
            try (SinkRunner first = SinkRunner.create(config, new SimulatedApplier(1, Duration.ofMinutes(10))).start()) {
                kit.send(allocate("resume", "n1", 2_500, List.of(), 0));
                kit.eventsUntil(e -> has(e, "resume", "STARTED"), WAIT);
                assertThat(first.running()).hasSize(1);
            }
            try (SinkRunner second = SinkRunner.create(config, new SimulatedApplier(1, Duration.ofMinutes(10))).start()) {
                assertThat(second.running()).hasSize(1);
                // Within less than the job's whole 2.5 s again: the restarted sink runs only its remaining time.
                final List<JobEvent> ev = kit.eventsUntil(e -> has(e, "resume", "COMPLETED"), Duration.ofMillis(2_500));
                assertThat(count(ev, "resume", "APPLIED")).isEqualTo(1);
                assertThat(count(ev, "resume", "STARTED")).isEqualTo(1);
                assertThat(second.running()).isEmpty();
            }
        }
    }

    @Test
    void aRestartedSinkAdoptsARunningProcessAndCanEvictIt(final TestStack stack) throws Exception {
        final Path job = dir.resolve("job.sh");
        Files.writeString(job, "#!/bin/bash\ntrap 'exit 143' TERM\nsleep 1000 &\nwait\n");
        Files.setPosixFilePermissions(job, PosixFilePermissions.fromString("rwx------"));
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            final SinkConfig config = kit.config(dir.resolve("state"));
            ProcessHandle process = null;
            try {
                final ExecApplier firstExec = new ExecApplier(CommandTemplate.jobCommand(), Duration.ofSeconds(5), dir);
                try (SinkRunner first = SinkRunner.create(config, firstExec).start()) {
                    kit.send(allocate("adopt", "n1", 0, List.of(job.toString()), 4));
                    kit.eventsUntil(e -> has(e, "adopt", "STARTED"), WAIT);
                    process = firstExec.processOf(first.running().values().iterator().next()).orElseThrow();
                }
                assertThat(ProcessTree.alive(process)).as("a sink restart leaves jobs running").isTrue();

                final ExecApplier secondExec = new ExecApplier(CommandTemplate.jobCommand(), Duration.ofSeconds(5), dir);
                try (SinkRunner second = SinkRunner.create(config, secondExec).start()) {
                    assertThat(secondExec.processOf(second.running().values().iterator().next()).orElseThrow().pid())
                            .isEqualTo(process.pid());
                    kit.send(stop(NodeCommandType.EVICT, "adopt", "n1", "node drained"));
                    final List<JobEvent> ev = kit.eventsUntil(e -> has(e, "adopt", "EVICTED"), WAIT);
                    assertThat(ProcessTree.alive(process)).isFalse();
                    assertThat(count(ev, "adopt", "STARTED")).isEqualTo(1);
                    assertThat(count(ev, "adopt", "COMPLETED") + count(ev, "adopt", "FAILED")).isZero();
                }
            } finally {
                if (process != null) {
                    process.destroyForcibly();
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                }
            }
        }
    }

    @Test
    void anOutcomeRecordedButNotDeliveredIsSentAgainAfterARestart(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            final SinkConfig config = kit.config(dir.resolve("state"));
            // What a sink killed right after a job ended leaves: the outcome, but no acknowledgement.
            final NodeCommand c = allocate("ended", "n1", 0, List.of("/bin/false"), 0);
            final JobPart part = JobPart.of(c);
            try (AppliedLedger ledger = AppliedLedger.open(config.stateDir())) {
                ledger.applied(c, Optional.of(part), 1);
                ledger.started(part, 999_999_999L, 2);
                ledger.outcome(part, new LedgerEntry.Event("FAILED", c.getCommandId(),
                        c.getDecisionId(), part.placementId(), 1, "exit code 1"));
            }
            final ExecApplier exec = new ExecApplier(CommandTemplate.jobCommand(), Duration.ofSeconds(1), dir);
            try (SinkRunner sink = SinkRunner.create(config, exec).start()) {
                final List<JobEvent> ev = kit.eventsUntil(e -> has(e, "ended", "FAILED"), WAIT);
                final JobEvent failed = ev.get(0);
                assertThat(failed.getExitCode()).isEqualTo(1);
                assertThat(failed.getReason()).isEqualTo("exit code 1");
                assertThat(failed.getEventId()).isEqualTo(c.getCommandId() + "/FAILED");
                assertThat(failed.getPlacementId()).isEqualTo("place-ended");
                assertThat(sink.running()).isEmpty();
            }
            try (AppliedLedger ledger = AppliedLedger.open(config.stateDir())) {
                assertThat(ledger.unsettled()).as("settled once Kafka had the event").isEmpty();
            }
        }
    }

    @Test
    void releaseStopsARunningGangMemberAndReportsItReleased(final TestStack stack) throws Exception {
        try (SinkTestKit kit = new SinkTestKit(stack, 1)) {
            try (SinkRunner sink = SinkRunner.create(kit.config(dir.resolve("state")),
                    new SimulatedApplier(10, Duration.ofMinutes(10))).start()) {
                kit.send(allocate("gang", "n1", 1_000, List.of(), 0));       // rank 0 ends after 100 ms
                kit.send(allocate("gang", "n2", 3_600_000, List.of(), 0));   // rank 1 still runs
                kit.eventsUntil(e -> has(e, "gang", "COMPLETED"), WAIT);
                // The scheduler answers the COMPLETED with RELEASE on every node of the gang.
                kit.send(stop(NodeCommandType.RELEASE, "gang", "n1", "completed"));
                kit.send(stop(NodeCommandType.RELEASE, "gang", "n2", "completed"));
                kit.eventsUntil(e -> count(e, "gang", "APPLIED") == 4 && has(e, "gang", "RELEASED"), WAIT);
                final List<JobEvent> ev = kit.eventsWhile(e -> count(e, "gang", "EVICTED") == 0
                        && count(e, "gang", "COMPLETED") == 1 && count(e, "gang", "RELEASED") == 1, Duration.ofSeconds(1));
                assertThat(count(ev, "gang", "EVICTED")).isZero();
                assertThat(count(ev, "gang", "COMPLETED")).isEqualTo(1);
                // Only the rank that still ran is released; the one that completed had nothing to stop.
                final List<JobEvent> released = ev.stream().filter(e -> e.getType().name().equals("RELEASED")).toList();
                assertThat(released).singleElement().satisfies(r -> {
                    assertThat(r.getNodeId()).isEqualTo("n2");
                    assertThat(r.getPlacementId()).isEqualTo("place-gang");
                    assertThat(r.getEventId()).isEqualTo("release-gang-n2/RELEASED");
                    assertThat(r.getReason()).contains("completed");
                });
                assertThat(ev.indexOf(released.get(0))).as("after the RELEASE was applied")
                        .isGreaterThan(ev.indexOf(ev.stream().filter(e -> e.getEventId().equals("release-gang-n2/APPLIED"))
                                .findFirst().orElseThrow()));
                assertThat(sink.running()).isEmpty();
                assertThat(sink.busyGpuUuids()).isEmpty();
            }
        }
    }
}
