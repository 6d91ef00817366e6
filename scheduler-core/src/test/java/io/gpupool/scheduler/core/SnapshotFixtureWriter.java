package io.gpupool.scheduler.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the snapshot fixture of the codec's current version, only when asked:
 * {@code mvn -o -pl scheduler-core test -Dtest=SnapshotFixtureWriter
 * -Dsnapshot.fixture.dir=$PWD/scheduler-core/src/test/resources/snapshots}. A fixture of an older
 * version is never rewritten: it is what that version's codec wrote.
 */
class SnapshotFixtureWriter {

    @Test
    @EnabledIfSystemProperty(named = "snapshot.fixture.dir", matches = ".+")
    void writeTheCurrentVersionsFixture() throws IOException {
        final Path file = Path.of(System.getProperty("snapshot.fixture.dir"), "engine-v" + SnapshotCodec.VERSION + ".bin");
        Files.write(file, SnapshotFixtures.engine().snapshot());
    }
}
