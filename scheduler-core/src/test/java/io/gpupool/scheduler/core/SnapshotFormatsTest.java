package io.gpupool.scheduler.core;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots written by older codecs still read to the state they held: the committed fixtures
 * ({@link SnapshotFixtures}) of version 5, written by the version 5 codec, and of versions 6 and 7;
 * versions 1 to 4 are the version 5 bytes without the sections those versions did not have yet. Version 6
 * names enum constants, so an enum's order does not decide what a snapshot means; version 7 carries the
 * engine settings, so a restore runs on under the configuration the state was reached with.
 */
class SnapshotFormatsTest {
    private static final byte[] V5 = SnapshotFixtures.resource("engine-v5.bin");
    private static final byte[] V6 = SnapshotFixtures.resource("engine-v6.bin");
    private static final byte[] V7 = SnapshotFixtures.resource("engine-v7.bin");

    @Test
    void versions5And6ReadToTheStateTheyHeldAndReencodeToTheVersion7Fixture() {
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(V7, PoolEngine.restore(V5, SnapshotFixtures.CONFIG).snapshot(), "restore " + i);
        }
        assertArrayEquals(V7, PoolEngine.restore(V6, SnapshotFixtures.CONFIG).snapshot());
        assertArrayEquals(V7, PoolEngine.restore(V7, SnapshotFixtures.CONFIG).snapshot());
        assertEquals(7, V7[7], "the fixture is of the current version");
    }

    /** Version 7 carries the settings it was written under, and a restore takes them, not the ones it is given. */
    @Test
    void aVersion7SnapshotRestoresUnderItsOwnSettings() {
        final EngineConfig today = EngineConfig.fromSettings(Map.of("pool", "p", "policy", "first-fit",
                "tenant.t1.max-gpus", "4"));
        assertEquals(SnapshotFixtures.CONFIG, PoolEngine.snapshotConfig(V7).orElseThrow());
        assertEquals(SnapshotFixtures.CONFIG, PoolEngine.restore(V7, today).config());
        assertTrue(PoolEngine.snapshotConfig(V6).isEmpty(), "version 6 does not say");
        assertEquals(today, PoolEngine.restore(V6, today).config(), "an older snapshot restores under the given config");
        final PoolEngine restored = PoolEngine.restore(V6, today);
        assertEquals(today, PoolEngine.restore(restored.snapshot(), SnapshotFixtures.CONFIG).config());
    }

    /** The engine restored from version 5 bytes decides like the engine that lived through the fixture's inputs. */
    @Test
    void aVersion5RestoreDecidesLikeTheEngineThatLived() {
        final PoolEngine live = SnapshotFixtures.engine();
        final PoolEngine restored = PoolEngine.restore(V5, SnapshotFixtures.CONFIG);
        final List<EngineInput> next = new ArrayList<>();
        long t = live.st.nowMs + 1_000;
        for (final Job j : live.st.activeJobs.values()) {
            if (j.state.holdsResources()) {
                next.add(new EngineInput.JobReport(t++, j.id(), EngineInput.JobEventKind.COMPLETED, RandomStreams.CURRENT,
                        "", ""));
            }
        }
        next.add(new EngineInput.ClockTick(t += 60_000));
        next.add(new EngineInput.SubmitJob(++t, JobSpec.builder("after").tenant("t1").gang(2, 4).build()));
        next.add(new EngineInput.NodeRemoval(++t, "x0"));
        next.add(new EngineInput.ClockTick(t + 3_600_000));
        assertTrue(next.size() > 5, "jobs held resources");
        for (final EngineInput in : next) {
            final EngineInput bound = RandomStreams.bind(live, in);
            assertEquals(live.apply(bound), restored.apply(bound), in.toString());
        }
    }

    @Test
    void versions1To4StillRead() {
        for (int version = 1; version <= 4; version++) {
            assertArrayEquals(asIfRestoredFrom(version), PoolEngine.restore(olderThan5(version), SnapshotFixtures.CONFIG)
                    .snapshot(), "version " + version);
        }
    }

    @Test
    void version6WritesTheNamesOfEveryEnumsConstants() throws IOException {
        final SnapshotIn in = new SnapshotIn(V6);
        in.readInt();
        in.readInt();
        final Map<String, List<String>> table = new LinkedHashMap<>();
        final int types = in.readInt();
        for (int i = 0; i < types; i++) {
            table.put(in.str(), in.names());
        }
        assertEquals(List.of("hca-link-layer", "job-state", "priority-class", "gang-scope", "network", "reason-code",
                "decision-kind"), List.copyOf(table.keySet()));
        // the constants of that day, in their order; those added since are simply not named (QUEUE_FULL came after)
        final List<String> then = new java.util.ArrayList<>(names(ReasonCode.values()));
        then.removeAll(List.of(ReasonCode.QUEUE_FULL.name()));
        assertEquals(then, table.get("reason-code"));
        assertEquals(names(JobState.values()), table.get("job-state"));
    }

    /** A snapshot of a build whose enum had another order means the same constants: the index goes through the name. */
    @Test
    void version6ValuesMeanTheNamedConstantWhateverTheEnumsOrder() throws IOException {
        final SnapshotIn in = snapshotIn(Map.of("job-state", List.of("EVICTED", "PAUSED", "QUEUED")), 0, 2, 1);
        assertEquals(JobState.EVICTED, in.constant(JobState.class));
        assertEquals(JobState.QUEUED, in.constant(JobState.class));
        final IOException removed = assertThrows(IOException.class, () -> in.constant(JobState.class));
        assertTrue(removed.getMessage().contains("'PAUSED'"), removed.getMessage());
    }

    @Test
    void aSnapshotNamingAnUnknownEnumIsRefused() {
        final byte[] bytes = table(Map.of("gpu-colour", List.of("GREEN")));
        final IOException e = assertThrows(IOException.class, () -> SnapshotEnums.readTable(new SnapshotIn(bytes)));
        assertTrue(e.getMessage().contains("gpu-colour"), e.getMessage());
    }

    // ---- versions before 5: the version 5 fixture without its later sections

    /** The sections versions 1 to 4 lack (the last four, in version order). */
    private static final List<Integer> SINCE = List.of(2, 3, 4, 5);

    /**
     * The version 5 fixture as {@code version} wrote it: without the sections that came later. Their
     * lengths are measured with today's writers: they hold no reason code, the one enum whose width
     * changed in version 6.
     */
    private static byte[] olderThan5(final int version) {
        final PoolState st = PoolEngine.restore(V5, SnapshotFixtures.CONFIG).st;
        final List<Integer> lengths = List.of(
                length(out -> SnapshotConsolidation.write(out, st)),
                length(out -> SnapshotPlans.writeStanding(out, st)),
                length(out -> SnapshotNodes.writeUplinks(out, st)),
                length(out -> SnapshotJobs.writePlacements(out, st)));
        int cut = 0;
        for (int i = 0; i < SINCE.size(); i++) {
            if (SINCE.get(i) > version) {
                cut += lengths.get(i);
            }
        }
        final byte[] older = Arrays.copyOf(V5, V5.length - cut);
        older[7] = (byte) version;
        return older;
    }

    /** The version 5 fixture's state as a snapshot of {@code version} restores it: what later sections hold, unset. */
    private static byte[] asIfRestoredFrom(final int version) {
        final PoolEngine e = PoolEngine.restore(V5, SnapshotFixtures.CONFIG);
        final PoolState st = e.st;
        if (version < 2) {
            st.activeJobs.values().forEach(j -> j.consolidatedAtMs = Long.MIN_VALUE);
            st.consolidationMoves.clear();
        }
        if (version < 3) {
            st.plans.clear();
        }
        if (version < 4) {
            st.slots.stream().filter(n -> n != null).forEach(n -> n.uplinkPct = -1);
        }
        for (final Map<String, Job> jobs : List.of(st.activeJobs, st.finishedJobs)) {
            for (final Job j : jobs.values()) {
                j.placementId = "";
                j.earlierPlacements.clear();
                j.staleEvents = 0;
                j.refusedEvents = 0;
                j.lastRefusal = "";
            }
        }
        SnapshotJobs.placementsFromDecisions(st);
        return e.snapshot();
    }

    // ---- helpers

    private interface SectionWriter {
        void write(SnapshotOut out) throws IOException;
    }

    private static int length(final SectionWriter w) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SnapshotOut out = new SnapshotOut(bytes)) {
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.size();
    }

    private static byte[] table(final Map<String, List<String>> names, final int... values) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SnapshotOut out = new SnapshotOut(bytes)) {
            out.writeInt(names.size());
            for (final Map.Entry<String, List<String>> t : names.entrySet()) {
                out.str(t.getKey());
                out.names(t.getValue());
            }
            for (final int v : values) {
                out.writeByte(v);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** A stream positioned after a version 6 name table of {@code names}, then the value indexes. */
    private static SnapshotIn snapshotIn(final Map<String, List<String>> names, final int... values) throws IOException {
        final SnapshotIn in = new SnapshotIn(table(names, values));
        in.useEnums(SnapshotEnums.readTable(in));
        return in;
    }

    private static List<String> names(final Enum<?>[] constants) {
        return Arrays.stream(constants).map(Enum::name).toList();
    }
}
