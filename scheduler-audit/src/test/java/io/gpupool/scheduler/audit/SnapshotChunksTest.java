package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.journal.SnapshotChunks;
import io.gpupool.scheduler.journal.SnapshotTopic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SnapshotChunksTest {
    private static byte[] bytes(final int n, final long seed) {
        final byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void aSnapshotLargerThanTheRecordLimitComesBackWhole() {
        final byte[] snapshot = bytes(SnapshotChunks.CHUNK_BYTES * 3 + 17, 1);
        final List<SnapshotChunks.Chunk> chunks = SnapshotChunks.split("a", 5, snapshot);
        assertThat(chunks).hasSize(4);
        assertThat(chunks).allSatisfy(c -> assertThat(c.value().length).isLessThan(SnapshotChunks.CHUNK_BYTES + 256));
        assertThat(chunks).extracting(SnapshotChunks.Chunk::key).doesNotHaveDuplicates()
                .allSatisfy(k -> assertThat(k).startsWith(SnapshotTopic.key("a", 5) + "#"));
        final SnapshotChunks.Assembler a = new SnapshotChunks.Assembler();
        for (int i = chunks.size() - 1; i >= 0; i--) { // order on the topic does not matter
            a.add(chunks.get(i).value());
        }
        assertThat(a.complete().get("a")).singleElement().isEqualTo(snapshot);
    }

    @Test
    void chunksLeftBehindByAnOlderGenerationAreNotMistakenForASnapshot() {
        final byte[] old = bytes(SnapshotChunks.CHUNK_BYTES * 2 + 1, 2);
        final byte[] newer = bytes(10, 3);
        final long slotMate = 7 + SnapshotTopic.KEPT_PER_POOL; // same slot, so compaction replaces chunk 0 only
        final List<SnapshotChunks.Chunk> oldChunks = SnapshotChunks.split("a", 7, old);
        final List<SnapshotChunks.Chunk> newChunks = SnapshotChunks.split("a", slotMate, newer);
        assertThat(newChunks.get(0).key()).isEqualTo(oldChunks.get(0).key());
        final SnapshotChunks.Assembler a = new SnapshotChunks.Assembler();
        a.add(newChunks.get(0).value());
        a.add(oldChunks.get(1).value()); // survivors of compaction
        a.add(oldChunks.get(2).value());
        assertThat(a.complete().get("a")).singleElement().isEqualTo(newer);
    }

    @Test
    void anEmptySnapshotIsOneChunkAndAForeignRecordIsRefused() {
        final SnapshotChunks.Assembler a = new SnapshotChunks.Assembler();
        final List<SnapshotChunks.Chunk> chunks = SnapshotChunks.split("b", 1, new byte[0]);
        assertThat(chunks).hasSize(1);
        a.add(chunks.get(0).value());
        assertThat(a.complete().get("b")).singleElement().satisfies(b -> assertThat(b).isEmpty());
        assertThatThrownBy(() -> a.add(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
                .hasMessageContaining("not an engine snapshot chunk");
    }
}
