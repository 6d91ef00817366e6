package io.gpupool.scheduler.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** Snapshots written by older codecs (committed bytes, {@link SnapshotFixtures}) still read to the same state. */
class SnapshotFormatsTest {

    @Test
    void theVersion5FixtureRoundTrips() {
        final byte[] v5 = SnapshotFixtures.resource("engine-v5.bin");
        assertArrayEquals(v5, PoolEngine.restore(v5, SnapshotFixtures.CONFIG).snapshot());
    }
}
