package io.gpupool.sink.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.JournalPosition;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.apply.JobPart;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a reopened ledger remembers. */
class AppliedLedgerTest {

    @TempDir
    Path dir;

    static NodeCommand command(final String id, final NodeCommandType type, final String job, final String node) {
        return NodeCommand.newBuilder().setCommandId(id).setDecisionId("d-" + id).setType(type).setNodeId(node)
                .setJobId(job).setPool("p").setRuntimeEstimateMillis(5_000L).setReason(type == NodeCommandType.EVICT ? "Xid 79" : null)
                .setCause(new JournalPosition(0, 1L, java.time.Instant.ofEpochMilli(1))).build();
    }

    @Test
    void reopenedLedgerKnowsAppliedIdsAndUnsettledParts() throws Exception {
        final NodeCommand a = command("c1", NodeCommandType.ALLOCATE, "j1", "n1");
        final NodeCommand b = command("c2", NodeCommandType.ALLOCATE, "j2", "n1");
        final NodeCommand c = command("c3", NodeCommandType.ALLOCATE, "j3", "n1");
        final NodeCommand evictB = command("c4", NodeCommandType.EVICT, "j2", "n1");
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
        // A crash in the middle of an append leaves a torn last line.
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
            assertThat(unsettled.get(0).pendingStop()).isEmpty();
            assertThat(unsettled.get(1).pendingStop()).hasValueSatisfying(s -> {
                assertThat(s.type()).isEqualTo("EVICT");
                assertThat(s.reason()).isEqualTo("Xid 79");
            });
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
}
