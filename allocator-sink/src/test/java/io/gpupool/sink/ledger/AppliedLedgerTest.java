package io.gpupool.sink.ledger;

import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.events.JobEvents;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** What a reopened ledger remembers, and how big its file gets. */
class AppliedLedgerTest {

    @TempDir
    Path dir;

    static NodeCommand command(final String id, final NodeCommandType type, final String job, final String node) {
        return NodeCommand.newBuilder().setCommandId(id).setDecisionId("d-" + id).setType(type).setNodeId(node)
                .setJobId(job).setPool("p").setRuntimeEstimateMillis(5_000L).setReason(type == NodeCommandType.EVICT ? "Xid 79" : null)
                .setGpus(type == NodeCommandType.ALLOCATE ? List.of(new GpuAssignment("GPU-" + node + "-0", 0, 1000)) : List.of())
                .setCause(new JournalPosition(0, 1L, Instant.ofEpochMilli(1))).build();
    }

    static NodeCommand command(final String id, final NodeCommandType type, final String job, final String node,
                               final String placement) {
        return NodeCommand.newBuilder(command(id, type, job, node)).setPlacementId(placement).build();
    }

    @Test
    void reopenedLedgerKnowsAppliedIdsAndUnsettledParts() throws Exception {
        final NodeCommand a = command("c1", NodeCommandType.ALLOCATE, "j1", "n1", "place-1");
        final NodeCommand b = command("c2", NodeCommandType.ALLOCATE, "j2", "n1", "place-2");
        final NodeCommand c = command("c3", NodeCommandType.ALLOCATE, "j3", "n1", "place-3");
        final NodeCommand evictB = command("c4", NodeCommandType.EVICT, "j2", "n1", "place-2");
        final JobPart pa = JobPart.of(a);
        final JobPart pb = JobPart.of(b);
        final JobPart pc = JobPart.of(c);
        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            ledger.applied(a, Optional.of(pa), 100);
            ledger.started(pa, 4242, 150);
            ledger.applied(b, Optional.of(pb), 200);
            ledger.applied(c, Optional.of(pc), 300);
            ledger.ended(pc, "completed");
            ledger.applied(evictB, Optional.empty(), 400);
        }
        // A crash in the middle of an append leaves a torn last record.
        Files.writeString(dir.resolve(AppliedLedger.FILE_NAME), "{\"kind\":\"appl", StandardOpenOption.APPEND);

        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            assertThat(ledger.isApplied("c1")).isTrue();
            assertThat(ledger.isApplied("c4")).isTrue();
            assertThat(ledger.isApplied("c5")).isFalse();
            final List<ActivePart> unsettled = ledger.unsettled();
            assertThat(unsettled).extracting(x -> x.part().jobId()).containsExactly("j1", "j2");
            assertThat(unsettled.get(0).pid()).isEqualTo(4242);
            assertThat(unsettled.get(0).startedAtMillis()).isEqualTo(150);
            assertThat(unsettled.get(0).part().runtimeMillis()).hasValue(5_000L);
            assertThat(unsettled.get(0).part().placementId()).isEqualTo("place-1");
            assertThat(unsettled.get(0).pendingStop()).isEmpty();
            assertThat(unsettled.get(1).pendingStop()).hasValueSatisfying(s -> {
                assertThat(s.type()).isEqualTo("EVICT");
                assertThat(s.reason()).isEqualTo("Xid 79");
                assertThat(s.placementId()).isEqualTo("place-2");
            });
        }
    }

    @Test
    void anOutcomeKeepsItsPlacementForTheEventSentAgain() throws Exception {
        final NodeCommand a = command("c1", NodeCommandType.ALLOCATE, "j1", "n1", "place-1");
        final JobPart part = JobPart.of(a);
        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            ledger.applied(a, Optional.of(part), 100);
            ledger.outcome(part, JobEvents.toOutcome(JobEvents.stopped(part, JobEventType.RELEASED,
                    "r1", "d-r1", Instant.now(), 143, "released")));
        }
        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            final ActivePart a1 = ledger.unsettled().get(0);
            assertThat(a1.outcome()).hasValueSatisfying(o -> assertThat(o.placementId()).isEqualTo("place-1"));
            final JobEvent again = JobEvents.ofOutcome(a1.part(), a1.outcome().get(), Instant.now());
            assertThat(again.getEventId()).isEqualTo("r1/RELEASED");
            assertThat(again.getPlacementId()).isEqualTo("place-1");
        }
    }

    @Test
    void aJobPlacedAgainWhileItsOldPartStopsHasBothPartsUnsettled() throws Exception {
        final NodeCommand oldAlloc = command("c-old", NodeCommandType.ALLOCATE, "j", "n1", "place-old");
        final NodeCommand newAlloc = command("c-new", NodeCommandType.ALLOCATE, "j", "n1", "place-new");
        final JobPart oldPart = JobPart.of(oldAlloc);
        final JobPart newPart = JobPart.of(newAlloc);
        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            ledger.applied(oldAlloc, Optional.of(oldPart), 1);
            ledger.started(oldPart, 111, 2);
            ledger.applied(command("e-old", NodeCommandType.EVICT, "j", "n1", "place-old"), Optional.empty(), 3);
            ledger.applied(newAlloc, Optional.of(newPart), 4); // the old part is still in its grace period
            ledger.started(newPart, 222, 5);
            // The old placement's late RELEASE names it: it is stopping already, and it is not the new part's.
            ledger.applied(command("r-old", NodeCommandType.RELEASE, "j", "n1", "place-old"), Optional.empty(), 6);
        }
        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            // A restarted sink must still finish the old part's stop, not only resume the new part.
            assertThat(ledger.unsettled()).hasSize(2);
            final ActivePart old = ledger.unsettled().get(0);
            final ActivePart now = ledger.unsettled().get(1);
            assertThat(old.part().placementId()).isEqualTo("place-old");
            assertThat(old.pid()).isEqualTo(111);
            assertThat(old.pendingStop()).hasValueSatisfying(s -> assertThat(s.commandId()).isEqualTo("e-old"));
            assertThat(now.part().placementId()).isEqualTo("place-new");
            assertThat(now.pid()).isEqualTo(222);
            assertThat(now.pendingStop()).isEmpty();
            ledger.ended(oldPart, "EVICTED");
            // A stop that names no placement takes the part running now.
            ledger.applied(command("e-any", NodeCommandType.EVICT, "j", "n1"), Optional.empty(), 7);
            assertThat(ledger.unsettled()).singleElement().satisfies(a -> assertThat(a.pendingStop())
                    .hasValueSatisfying(s -> assertThat(s.commandId()).isEqualTo("e-any")));
        }
    }

    @Test
    void aLedgerWrittenBeforeRecordsWereFramedIsReadAndRewrittenFramed() throws Exception {
        final Path file = dir.resolve(AppliedLedger.FILE_NAME);
        // Records as the sink wrote them before placements and framing, ending in a torn line.
        final String part = "\"part\":{\"gpuIndices\":[0],\"gpuUuids\":[\"GPU-n1-0\"],\"rank\":0,\"gangNodes\":[],"
                + "\"command\":[],\"args\":[],\"env\":{},\"runtimeMillis\":5000}";
        Files.writeString(file, String.join("\n",
                "{\"kind\":\"applied\",\"commandId\":\"c1\",\"type\":\"ALLOCATE\",\"jobId\":\"j1\",\"nodeId\":\"n1\","
                        + "\"decisionId\":\"d-c1\",\"at\":100," + part + "}",
                "{\"kind\":\"started\",\"commandId\":\"c1\",\"jobId\":\"j1\",\"nodeId\":\"n1\",\"decisionId\":\"d-c1\","
                        + "\"at\":150,\"pid\":4242}",
                "{\"kind\":\"applied\",\"commandId\":\"c2\",\"type\":\"ALLOCATE\",\"jobId\":\"j2\",\"nodeId\":\"n1\","
                        + "\"decisionId\":\"d-c2\",\"at\":200," + part + "}",
                "{\"kind\":\"applied\",\"commandId\":\"e2\",\"type\":\"EVICT\",\"jobId\":\"j2\",\"nodeId\":\"n1\","
                        + "\"decisionId\":\"d-e2\",\"at\":250,\"reason\":\"Xid 79\"}",
                "{\"kind\":\"applied\",\"commandId\":\"c3\",\"type\":\"ALLOCATE\",\"jobId\":\"j3\",\"nodeId\":\"n1\","
                        + "\"decisionId\":\"d-c3\",\"at\":300," + part + "}",
                "{\"kind\":\"outcome\",\"commandId\":\"c3\",\"jobId\":\"j3\",\"nodeId\":\"n1\",\"decisionId\":\"d-c3\","
                        + "\"at\":350,\"event\":{\"type\":\"COMPLETED\",\"commandId\":\"c3\",\"decisionId\":\"d-c3\","
                        + "\"exitCode\":0}}",
                "{\"kind\":\"applied\",\"commandId\":\"c4\",\"type\":\"ALLOCATE\",\"jobId\":\"j4\",\"nodeId\":\"n1\","
                        + "\"decisionId\":\"d-c4\",\"at\":400," + part + "}",
                "{\"kind\":\"ended\",\"commandId\":\"c4\",\"jobId\":\"j4\",\"nodeId\":\"n1\",\"decisionId\":\"d-c4\","
                        + "\"at\":450,\"reason\":\"COMPLETED\"}",
                "{\"kind\":\"applied\",\"commandId\":\"c5\",\"ty"), StandardCharsets.UTF_8);

        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            assertThat(List.of("c1", "c2", "e2", "c3", "c4")).allMatch(ledger::isApplied);
            assertThat(ledger.isApplied("c5")).as("torn").isFalse();
            final List<ActivePart> unsettled = ledger.unsettled();
            assertThat(unsettled).extracting(a -> a.part().jobId()).containsExactly("j1", "j2", "j3");
            // Records without a placement: a part's placement is its ALLOCATE's decision.
            assertThat(unsettled).extracting(a -> a.part().placementId()).containsExactly("d-c1", "d-c2", "d-c3");
            assertThat(unsettled.get(0).pid()).isEqualTo(4242);
            assertThat(unsettled.get(1).pendingStop()).hasValueSatisfying(s -> assertThat(s.placementId()).isNull());
            assertThat(JobEvents.ofOutcome(unsettled.get(2).part(), unsettled.get(2).outcome().orElseThrow(),
                    Instant.now()).getPlacementId()).isEqualTo("d-c3");
            ledger.applied(command("c6", NodeCommandType.ALLOCATE, "j6", "n1", "place-6"),
                    Optional.of(JobPart.of(command("c6", NodeCommandType.ALLOCATE, "j6", "n1", "place-6"))), 600);
        }
        assertThat(Files.readAllLines(file)).as("every record framed").isNotEmpty()
                .allMatch(l -> l.matches("\\d+ [0-9a-f]{8} \\{.*}"));
        for (int reopen = 0; reopen < 2; reopen++) {
            try (AppliedLedger ledger = AppliedLedger.open(dir)) {
                assertThat(List.of("c1", "c2", "e2", "c3", "c4", "c6")).allMatch(ledger::isApplied);
                assertThat(ledger.isApplied("c5")).isFalse();
                assertThat(ledger.unsettled()).extracting(a -> a.part().jobId()).containsExactly("j1", "j2", "j3", "j6");
                assertThat(ledger.unsettled().get(1).pendingStop()).isPresent();
            }
        }
    }

    @Test
    void openingCompactsToTheNewestIdsAndTheUnsettledParts() throws Exception {
        final int commands = 12_000;
        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            for (int i = 0; i < commands; i++) {
                final NodeCommand c = command("c" + i, NodeCommandType.ALLOCATE, "j" + i, "n1");
                final JobPart p = JobPart.of(c);
                ledger.applied(c, Optional.of(p), i);
                ledger.started(p, 1000 + i, i);
                if (i != 10 && i != 11) {
                    ledger.ended(p, "completed");
                }
            }
            ledger.applied(command("evict-11", NodeCommandType.EVICT, "j11", "n1"), Optional.empty(), commands);
        }
        final long before = Files.size(dir.resolve(AppliedLedger.FILE_NAME));
        try (AppliedLedger ledger = AppliedLedger.open(dir, 5_000)) {
            assertThat(Files.size(dir.resolve(AppliedLedger.FILE_NAME))).isLessThan(before / 5);
            assertThat(ledger.isApplied("evict-11")).isTrue();
            assertThat(ledger.isApplied("c" + (commands - 1))).isTrue();
            assertThat(ledger.isApplied("c" + (commands - 4_999))).isTrue();
            assertThat(ledger.isApplied("c100")).as("older than the retained ids").isFalse();
            assertThat(ledger.unsettled()).extracting(a -> a.part().jobId()).containsExactly("j10", "j11");
            assertThat(ledger.unsettled().get(0).pid()).isEqualTo(1010);
            assertThat(ledger.unsettled().get(1).pendingStop()).isPresent();
        }
        // Reopening the compacted ledger changes nothing.
        final long compacted = Files.size(dir.resolve(AppliedLedger.FILE_NAME));
        try (AppliedLedger ledger = AppliedLedger.open(dir, 5_000)) {
            assertThat(Files.size(dir.resolve(AppliedLedger.FILE_NAME))).isEqualTo(compacted);
            assertThat(ledger.unsettled()).hasSize(2);
        }
    }

    @Test
    void theFileStaysBoundedWhileTheSinkRunsWithoutRestarting() throws Exception {
        final Path file = dir.resolve(AppliedLedger.FILE_NAME);
        final int retainIds = 1_000;
        final int perPoll = 100;
        final int commands = 25_000; // 75,000 records appended in all
        long mostBeforeSync = 0;
        long mostAfterSync = 0;
        try (AppliedLedger ledger = AppliedLedger.open(dir, retainIds)) {
            for (int i = 0; i < commands; i++) {
                final NodeCommand c = command("c" + i, NodeCommandType.ALLOCATE, "j" + i, "n1");
                final JobPart p = JobPart.of(c);
                ledger.applied(c, Optional.of(p), i);
                ledger.started(p, 1000 + i, i);
                if (i % 5_000 != 7) { // every 5,000th part runs on, far longer than its id is retained
                    ledger.ended(p, "completed");
                }
                if (i % perPoll == perPoll - 1) {
                    mostBeforeSync = Math.max(mostBeforeSync, records(file));
                    ledger.sync();
                    mostAfterSync = Math.max(mostAfterSync, records(file));
                    assertThat(ledger.records()).isEqualTo(records(file));
                }
            }
            assertThat(mostAfterSync).as("records after a poll's sync").isLessThan(AppliedLedger.COMPACT_MIN_RECORDS);
            assertThat(mostBeforeSync).as("records at most, a poll's appends included")
                    .isLessThan(AppliedLedger.COMPACT_MIN_RECORDS + 3L * perPoll);
            assertThat(ledger.isApplied("c" + (commands - 1))).isTrue();
            assertThat(ledger.isApplied("c" + (commands - retainIds))).isTrue();
            assertThat(ledger.isApplied("c100")).as("settled long ago, beyond the retained ids").isFalse();
            assertThat(ledger.isApplied("c7")).as("its part is unsettled").isTrue();
            assertThat(ledger.unsettled()).extracting(a -> a.part().jobId())
                    .containsExactly("j7", "j5007", "j10007", "j15007", "j20007");
        }
        try (AppliedLedger ledger = AppliedLedger.open(dir, retainIds)) {
            assertThat(ledger.unsettled()).extracting(ActivePart::pid).containsExactly(1007L, 6007L, 11007L, 16007L, 21007L);
            assertThat(ledger.isApplied("c" + (commands - 1))).isTrue();
            assertThat(ledger.isApplied("c7")).isTrue();
            assertThat(ledger.isApplied("c100")).isFalse();
        }
    }

    private static long records(final Path file) throws IOException {
        long n = 0;
        for (final byte b : Files.readAllBytes(file)) {
            if (b == '\n') {
                n++;
            }
        }
        return n;
    }
}
