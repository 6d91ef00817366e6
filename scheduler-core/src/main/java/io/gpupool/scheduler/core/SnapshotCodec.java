package io.gpupool.scheduler.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The engine state as versioned bytes: a header (magic, version, from version 6 the enum name table,
 * from version 7 the engine settings), the pool's counters and clock, then the sections below in this
 * order, each written by its own codec. Hand-written so that the same state always gives the same
 * bytes (every collection is written in a deterministic order) and old snapshots stay readable.
 * Derived structures (capacity index, shared-room sets, inventory totals) are rebuilt, not stored.
 *
 * <p>Versions: 1 as first released; 2 appends the consolidation guard; 3 the standing reservation
 * plans; 4 each node's uplink utilisation; 5 each job's placement identity; 6 writes every enum by
 * name ({@link SnapshotEnums}) instead of by ordinal; 7 adds the engine settings to the header
 * ({@link SnapshotSettings}): a restore takes them, while an older snapshot restores under the
 * configuration it is given. A snapshot of an older version restores without the sections it lacks
 * (each section says what that means) and with its enums read by the frozen ordinals of those
 * versions ({@link SnapshotLegacyOrdinals}).
 */
final class SnapshotCodec {
    private static final int MAGIC = 0x47505045; // "GPPE"
    static final int VERSION = 7;
    private static final int OLDEST_READABLE = 1;
    /** The first version that names enum constants instead of writing ordinals. */
    private static final int ENUMS_BY_NAME = 6;
    /** The first version that carries the engine settings. */
    private static final int WITH_SETTINGS = 7;

    private interface Writer {
        void write(SnapshotOut out, PoolState st) throws IOException;
    }

    private interface Reader {
        void read(SnapshotIn in, PoolState st) throws IOException;
    }

    private interface Absent {
        void restore(PoolState st);
    }

    /** A section: in snapshots from version {@code since} on; {@code absent} fills in for older ones. */
    private record Section(String name, int since, Writer writer, Reader reader, Absent absent) {
        Section(final String name, final int since, final Writer writer, final Reader reader) {
            this(name, since, writer, reader, st -> { });
        }
    }

    /** The sections in the order they are written (later versions appended theirs). */
    private static final List<Section> SECTIONS = List.of(
            new Section("name tables and leaves", 1, SnapshotFabric::write, SnapshotFabric::read),
            new Section("nodes", 1, SnapshotNodes::write, SnapshotNodes::read),
            new Section("jobs", 1, SnapshotJobs::write, SnapshotJobs::read),
            new Section("waiting queue", 1, SnapshotJobs::writeQueue, SnapshotJobs::readQueue),
            new Section("jobs on each node", 1, SnapshotNodes::writeJobLists, SnapshotNodes::readJobLists),
            new Section("job-size mix", 1, SnapshotJobSizeMix::write, SnapshotJobSizeMix::read),
            new Section("reservation", 1, SnapshotPlans::writeReservation, SnapshotPlans::readReservation),
            new Section("fair share", 1, SnapshotTenants::writeFairShare, SnapshotTenants::readFairShare),
            new Section("runtime samples", 1, SnapshotTenants::writeRuntimeSamples, SnapshotTenants::readRuntimeSamples),
            new Section("consolidation guard", 2, SnapshotConsolidation::write, SnapshotConsolidation::read),
            new Section("standing plans", 3, SnapshotPlans::writeStanding, SnapshotPlans::readStanding),
            new Section("node uplinks", 4, SnapshotNodes::writeUplinks, SnapshotNodes::readUplinks),
            new Section("placement identity", 5, SnapshotJobs::writePlacements, SnapshotJobs::readPlacements,
                    SnapshotJobs::placementsFromDecisions));

    private SnapshotCodec() {
    }

    static byte[] write(final PoolEngine e) {
        final PoolState st = e.st;
        // sized like the last snapshot, so that a large one is not copied over and over as it grows
        final GrowableBytes bytes = new GrowableBytes(Math.max(1 << 16, e.lastSnapshotSize + (e.lastSnapshotSize >> 3)));
        try (SnapshotOut out = new SnapshotOut(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            SnapshotEnums.writeTable(out);
            SnapshotSettings.write(out, e.config().toSettings());
            out.writeLong(st.decisionSeq);
            out.writeLong(st.submitSeq);
            out.writeLong(st.nowMs);
            for (final Section s : SECTIONS) {
                s.writer().write(out, st);
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        e.lastSnapshotSize = bytes.size();
        return bytes.toByteArray();
    }

    static void read(final byte[] data, final PoolEngine e) {
        final PoolState st = e.st;
        String at = "header";
        try (SnapshotIn in = new SnapshotIn(data)) {
            final int version = readHeader(in);
            if (version >= WITH_SETTINGS) {
                SnapshotSettings.read(in); // the engine was built with them (PoolEngine.restore) before its state is read
            }
            st.decisionSeq = in.readLong();
            st.submitSeq = in.readLong();
            st.nowMs = in.readLong();
            for (final Section s : SECTIONS) {
                at = s.name();
                if (version >= s.since()) {
                    s.reader().read(in, st);
                } else {
                    s.absent().restore(st);
                }
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException("engine snapshot has " + in.available() + " trailing bytes");
            }
        } catch (IOException ex) {
            throw new IllegalArgumentException("engine snapshot is truncated or corrupt (" + at + "): " + ex.getMessage(), ex);
        }
        e.rebuildDerived();
    }

    /**
     * The engine settings a snapshot was written under (version 7 on); empty for older versions, which
     * restore under the configuration they are given.
     */
    static Optional<SortedMap<String, String>> settings(final byte[] data) {
        try (SnapshotIn in = new SnapshotIn(data)) {
            return readHeader(in) >= WITH_SETTINGS ? Optional.of(SnapshotSettings.read(in)) : Optional.empty();
        } catch (IOException ex) {
            throw new IllegalArgumentException("engine snapshot is truncated or corrupt (header): " + ex.getMessage(), ex);
        }
    }

    /** Reads the header up to the settings: the magic, the version (returned) and the enum table. */
    private static int readHeader(final SnapshotIn in) throws IOException {
        if (in.readInt() != MAGIC) {
            throw new IllegalArgumentException("not a gpupool engine snapshot (bad magic)");
        }
        final int version = in.readInt();
        if (version < OLDEST_READABLE || version > VERSION) {
            throw new IllegalArgumentException("engine snapshot version " + version + " is not supported (this build reads "
                    + OLDEST_READABLE + " to " + VERSION + ")");
        }
        in.useEnums(version >= ENUMS_BY_NAME ? SnapshotEnums.readTable(in) : SnapshotLegacyOrdinals.ENUMS);
        return version;
    }
}
