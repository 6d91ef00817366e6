package io.gpupool.scheduler.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the snapshot fixture of the codec's current version, only when asked:
 * {@code mvn -o -pl scheduler-core test -Dtest=SnapshotFixtureWriter
 * -Dsnapshot.fixture.dir=$PWD/scheduler-core/src/test/resources/snapshots}. It is the version 5
 * fixture's state re-encoded, not a fresh run of the fixture's inputs (the version 5 bytes were written
 * when reasons kept Map.of's per-run order of evidence; reading sorts it). A fixture of an older
 * version is never rewritten: it is what that version's codec wrote.
 */
class SnapshotFixtureWriter {

    @Test
    @EnabledIfSystemProperty(named = "snapshot.fixture.dir", matches = ".+")
    void writeTheCurrentVersionsFixture() throws IOException {
        final byte[] v5 = SnapshotFixtures.resource("engine-v5.bin");
        final Path file = Path.of(System.getProperty("snapshot.fixture.dir"), "engine-v" + SnapshotCodec.VERSION + ".bin");
        Files.write(file, PoolEngine.restore(v5, SnapshotFixtures.CONFIG).snapshot());
    }
}
