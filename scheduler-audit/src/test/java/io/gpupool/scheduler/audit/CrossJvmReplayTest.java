package io.gpupool.scheduler.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.audit.golden.RecordedHistoryFiles;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.journal.JournalRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same journals replayed in this JVM and in a second JVM on the other installed JDK (Java 17 and
 * 25 here) give the same decisions, node commands and snapshot bytes, byte for byte. The journals:
 * the golden recorded run, and synthetic histories under fgd and weighted best-fit with tenant
 * quotas, weights and a short fair-share half-life (gangs, preemption, quota waits, utilisation and
 * health facts), so that doubles reach decision text and fair-share decay and FGD's sigmoid decide.
 * The second JVM also has its own Map.of/Set.of salt, so an iteration of one that reaches bytes
 * shows here as well (with a chance of about one half per such map that both runs agree).
 */
class CrossJvmReplayTest {
    private static final String GOLDEN = "golden";
    private static final String FGD = "synthetic-fgd";
    private static final String BEST_FIT = "synthetic-best-fit";
    private static final List<String> NAMES = List.of(GOLDEN, FGD, BEST_FIT);
    private static final Map<String, Map<String, String>> SETTINGS = new TreeMap<>(Map.of(
            GOLDEN, Map.of(),
            FGD, synthetic("fgd", Map.of("fgd-integer-score", "true")),
            BEST_FIT, synthetic("best-fit", Map.of("best-fit-cpu-weight", "0.3"))));
    private static final Map<String, List<PlacementDecision>> RECORDED = new TreeMap<>();
    private static final Map<String, List<JournalRecord>> JOURNALS = new TreeMap<>();

    @TempDir
    Path dir;

    @BeforeAll
    static void journals() {
        JOURNALS.put(GOLDEN, RecordedHistoryFiles.read("/golden/history-1").journal());
        for (final String name : List.of(FGD, BEST_FIT)) {
            final Map<String, String> s = new TreeMap<>(SETTINGS.get(name));
            s.put("pool", "gpus");
            final SyntheticHistory.Recording r = SyntheticHistory.record("gpus", 16, 12_000, 16L,
                    EngineConfig.fromSettings(s));
            JOURNALS.put(name, r.journal());
            RECORDED.put(name, r.decisions());
        }
    }

    @Test
    void theSyntheticHistoriesHoldWhatTheyGuard() {
        RECORDED.forEach((name, d) -> {
            assertThat(d).as("%s: a gang", name)
                    .anyMatch(x -> x.getOutcome() == DecisionOutcome.PLACED && x.getAssignments().size() > 1);
            assertThat(d).as("%s: a preemption", name).anyMatch(x -> "PREEMPTED".contentEquals(reason(x)));
            assertThat(d).as("%s: a quota wait", name).anyMatch(x -> "QUOTA_EXHAUSTED".contentEquals(reason(x)));
            assertThat(d).as("%s: an eviction for failed hardware", name)
                    .anyMatch(x -> "HARDWARE_FAILURE".contentEquals(reason(x)));
            assertThat(d).as("%s: a score in the text", name).anyMatch(x -> x.getMessage().toString().contains(", score "));
        });
    }

    @Test
    void anotherJdkReplaysTheSameJournalsToTheSameBytes() throws Exception {
        final Optional<OtherJdk> other = OtherJdk.find();
        Assumptions.assumeTrue(other.isPresent(), "skipped: no JDK other than Java " + Runtime.version().feature()
                + " under /usr/lib/jvm, and none named by -D" + OtherJdk.PROPERTY + " or " + OtherJdk.ENV);
        final Path in = Files.createDirectories(dir.resolve("in"));
        final Path here = Files.createDirectories(dir.resolve("here"));
        final Path there = Files.createDirectories(dir.resolve("there"));
        for (final String name : NAMES) {
            JournalFile.write(in.resolve(name + ".journal"), JOURNALS.get(name));
            final Properties p = new Properties();
            p.putAll(SETTINGS.get(name));
            try (OutputStream o = Files.newOutputStream(in.resolve(name + ".settings"))) {
                p.store(o, null);
            }
            ReplayBytes.replay(in, name, here);
        }
        replayIn(other.get(), in, there);
        for (final String name : NAMES) {
            for (final String kind : List.of(ReplayBytes.DECISIONS, ReplayBytes.COMMANDS, ReplayBytes.SNAPSHOTS)) {
                compare(other.get(), name, kind, here, there);
            }
        }
    }

    private void replayIn(final OtherJdk jdk, final Path in, final Path out) throws Exception {
        final List<String> cmd = new ArrayList<>(List.of(jdk.java().toString(), "-Xmx512m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), ReplayBytes.class.getName(), in.toString(), out.toString()));
        cmd.addAll(NAMES);
        final Path log = dir.resolve("other-jvm.log");
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("the replay on Java " + jdk.major() + " did not end in 120 s: " + Files.readString(log));
        }
        assertThat(p.exitValue()).as("the replay on Java %d (%s): %s", jdk.major(), jdk.home(), Files.readString(log))
                .isZero();
    }

    private static void compare(final OtherJdk jdk, final String name, final String kind, final Path here,
                                final Path there) throws IOException {
        final List<byte[]> a = ReplayBytes.records(here.resolve(name + kind));
        final List<byte[]> b = ReplayBytes.records(there.resolve(name + kind));
        assertThat(a).as("%s%s replayed here", name, kind).isNotEmpty();
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                fail(String.format("%s%s: record %d of %d differs between Java %d and Java %d (%s), first at byte %d%s",
                        name, kind, i, a.size(), Runtime.version().feature(), jdk.major(), jdk.home(),
                        Arrays.mismatch(a.get(i), b.get(i)), kind.equals(ReplayBytes.DECISIONS)
                                ? "\n here:  " + line(here, name, i) + "\n there: " + line(there, name, i) : ""));
            }
        }
        assertThat(b).as("%s%s: as many records on Java %d as on Java %d", name, kind, jdk.major(),
                Runtime.version().feature()).hasSameSizeAs(a);
    }

    private static String line(final Path out, final String name, final int i) throws IOException {
        return Files.readAllLines(out.resolve(name + ReplayBytes.DECISIONS_TEXT)).get(i);
    }

    private static CharSequence reason(final PlacementDecision d) {
        return d.getReasonCode() == null ? "" : d.getReasonCode();
    }

    /** A contended pool with quotas, weights and a fast fair-share decay, under {@code policy}. */
    private static Map<String, String> synthetic(final String policy, final Map<String, String> more) {
        final Map<String, String> s = new TreeMap<>(more);
        s.put("policy", policy);
        s.put("fair-share-half-life-ms", "45000");
        s.put("tenant.team-a.max-gpus", "40");
        s.put("tenant.team-a.weight", "0.75");
        s.put("tenant.team-b.guaranteed-gpus", "64"); // under it, team b reclaims GPUs from the others: preemption
        s.put("tenant.team-b.weight", "1.5");
        s.put("tenant.team-c.guaranteed-gpus", "16");
        s.put("tenant.team-c.max-gpus", "64");
        return s;
    }
}
