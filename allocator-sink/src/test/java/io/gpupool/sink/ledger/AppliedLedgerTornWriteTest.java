package io.gpupool.sink.ledger;

import io.gpupool.avro.ExecSpec;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.apply.JobPart;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.gpupool.sink.ledger.AppliedLedgerTest.command;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A power loss in the middle of an append leaves the ledger's last record cut short anywhere, or
 * followed by whatever the disk held. Whatever it left, the ledger opens with every whole record,
 * counts the torn one as not written, and takes new records that the next opening reads; damage
 * followed by whole records is refused, naming the file and the offset.
 */
class AppliedLedgerTornWriteTest {

    @TempDir
    Path dir;

    /** The ledger's bytes: whole records, the last of them the ALLOCATE of "torn". */
    private byte[] whole;
    /** Where the last record starts. */
    private int lastStart;

    @BeforeEach
    void writeALedger() throws Exception {
        final Path state = dir.resolve("original");
        final NodeCommand c1 = command("c1", NodeCommandType.ALLOCATE, "j1", "n1");
        final NodeCommand c2 = command("c2", NodeCommandType.ALLOCATE, "j2", "n1");
        // A long record, with an environment and characters outside ASCII: every cut inside it is tried.
        final NodeCommand torn = NodeCommand.newBuilder(command("torn", NodeCommandType.ALLOCATE, "jt", "n1"))
                .setJobName("tränierung-ø").setExec(ExecSpec.newBuilder()
                        .setCommand(List.of("python", "train.py")).setEnv(Map.of("LR", "0.1", "NOTE", "a \"quoted\" value"))
                        .build()).build();
        try (AppliedLedger ledger = AppliedLedger.open(state)) {
            ledger.applied(c1, Optional.of(JobPart.of(c1)), 100);
            ledger.started(JobPart.of(c1), 4242, 150);
            ledger.applied(c2, Optional.of(JobPart.of(c2)), 200);
            ledger.applied(command("e2", NodeCommandType.EVICT, "j2", "n1"), Optional.empty(), 250);
            lastStart = (int) Files.size(ledger.file());
            ledger.applied(torn, Optional.of(JobPart.of(torn)), 300);
        }
        whole = Files.readAllBytes(state.resolve(AppliedLedger.FILE_NAME));
        assertThat(whole.length - lastStart).as("the last record").isGreaterThan(200);
    }

    @Test
    void theWholeLedgerHasTheLastCommand() throws Exception {
        // The control: with nothing cut, the last command counts as applied.
        final Path state = withBytes("whole", whole);
        try (AppliedLedger ledger = AppliedLedger.open(state)) {
            assertThat(ledger.isApplied("torn")).isTrue();
        }
        assertThat(Files.readAllBytes(state.resolve(AppliedLedger.FILE_NAME))).isEqualTo(whole);
    }

    @Test
    void aCutAtAnyByteOfTheLastRecordLosesOnlyThatRecord() throws Exception {
        for (int cut = lastStart; cut < whole.length; cut++) {
            assertRecovers("cut-" + cut, Arrays.copyOf(whole, cut));
        }
    }

    @Test
    void garbageWhereTheLastRecordShouldBeIsCutOff() throws Exception {
        final byte[] head = Arrays.copyOf(whole, lastStart);
        final byte[] halfOfLast = Arrays.copyOf(whole, lastStart + (whole.length - lastStart) / 2);
        final byte[] random = new byte[300];
        new Random(42).nextBytes(random); // with line feeds among them
        final byte[] badChecksum = whole.clone();
        badChecksum[whole.length - 10] ^= 0x01; // a whole record whose payload changed under its checksum
        final Map<String, byte[]> tails = new LinkedHashMap<>();
        tails.put("zeros", concat(head, new byte[4096])); // the file grew, its data never reached the disk
        tails.put("ones", concat(head, filled(64, (byte) 0xff)));
        tails.put("random", concat(head, random));
        tails.put("header-only", concat(head, "412 0a1b2c3d ".getBytes(StandardCharsets.US_ASCII)));
        tails.put("torn-then-zeros", concat(halfOfLast, new byte[512]));
        tails.put("torn-then-random", concat(halfOfLast, random));
        tails.put("bad-checksum", badChecksum);
        // A whole JSON line as ledgers held before framing: after framed records it is no record.
        tails.put("old-style-line", concat(head, ("{\"kind\":\"applied\",\"commandId\":\"torn\",\"type\":\"EVICT\","
                + "\"jobId\":\"j1\",\"nodeId\":\"n1\"}\n").getBytes(StandardCharsets.UTF_8)));
        for (final Map.Entry<String, byte[]> t : tails.entrySet()) {
            assertRecovers(t.getKey(), t.getValue());
        }
    }

    @Test
    void damageFollowedByWholeRecordsIsRefusedWithTheFileAndOffset() throws Exception {
        final int second = indexOfLine(whole, 1);
        final int third = indexOfLine(whole, 2);
        final byte[] flipped = whole.clone();
        flipped[second + 20] ^= 0x01; // inside the second record's payload
        final byte[] inserted = concat(concat(Arrays.copyOf(whole, third), new byte[100]),
                Arrays.copyOfRange(whole, third, whole.length));
        for (final Map.Entry<String, Integer> damage : Map.of("flipped", second, "inserted", third).entrySet()) {
            final byte[] bytes = damage.getKey().equals("flipped") ? flipped : inserted;
            final Path state = withBytes(damage.getKey(), bytes);
            final Path file = state.resolve(AppliedLedger.FILE_NAME);
            assertThatThrownBy(() -> AppliedLedger.open(state)).isInstanceOf(IOException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("byte offset " + damage.getValue() + " ");
            assertThat(Files.readAllBytes(file)).as("a refused ledger is left as it was").isEqualTo(bytes);
        }
    }

    /** Opens a ledger holding {@code bytes} three times, appending between, and checks what it remembers. */
    private void assertRecovers(final String name, final byte[] bytes) throws Exception {
        final Path state = withBytes(name, bytes);
        final NodeCommand after1 = command("after-1", NodeCommandType.ALLOCATE, "ja", "n1");
        final NodeCommand after2 = command("after-2", NodeCommandType.ALLOCATE, "jb", "n1");
        try (AppliedLedger ledger = AppliedLedger.open(state)) {
            assertWholeRecords(name, ledger);
            assertThat(ledger.isApplied("after-1")).isFalse();
            ledger.applied(after1, Optional.of(JobPart.of(after1)), 400);
        }
        try (AppliedLedger ledger = AppliedLedger.open(state)) {
            assertWholeRecords(name, ledger);
            assertThat(ledger.isApplied("after-1")).as(name + ": the append after the cut").isTrue();
            ledger.applied(after2, Optional.of(JobPart.of(after2)), 500);
        }
        try (AppliedLedger ledger = AppliedLedger.open(state)) {
            assertWholeRecords(name, ledger);
            assertThat(ledger.isApplied("after-1")).as(name).isTrue();
            assertThat(ledger.isApplied("after-2")).as(name).isTrue();
            assertThat(ledger.unsettled()).as(name).extracting(a -> a.part().jobId())
                    .containsExactly("j1", "j2", "ja", "jb");
        }
    }

    private static void assertWholeRecords(final String name, final AppliedLedger ledger) {
        assertThat(List.of("c1", "c2", "e2")).as(name + ": whole records").allMatch(ledger::isApplied);
        assertThat(ledger.isApplied("torn")).as(name + ": the torn command is not applied").isFalse();
        final ActivePart j1 = ledger.unsettled().get(0);
        final ActivePart j2 = ledger.unsettled().get(1);
        assertThat(j1.part().jobId()).as(name).isEqualTo("j1");
        assertThat(j1.pid()).as(name).isEqualTo(4242);
        assertThat(j2.pendingStop()).as(name).hasValueSatisfying(s -> assertThat(s.commandId()).isEqualTo("e2"));
    }

    private Path withBytes(final String name, final byte[] bytes) throws IOException {
        final Path state = dir.resolve(name);
        Files.createDirectories(state);
        Files.write(state.resolve(AppliedLedger.FILE_NAME), bytes);
        return state;
    }

    private static int indexOfLine(final byte[] bytes, final int line) {
        int seen = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (seen == line) {
                return i;
            }
            if (bytes[i] == '\n') {
                seen++;
            }
        }
        throw new IllegalArgumentException("no line " + line);
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }

    private static byte[] filled(final int n, final byte b) {
        final byte[] out = new byte[n];
        Arrays.fill(out, b);
        return out;
    }
}
