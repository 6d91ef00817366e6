package io.gpupool.cli.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpupool.scheduler.audit.AuditRange;
import io.gpupool.scheduler.journal.EngineSnapshot;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Snapshots of an older scheduler (format 1, no job book) are passed over, or refused when named. */
class SnapshotChoiceTest {
    private static final byte[] BOOK = {0, 0, 0, 1, 0, 0, 0, 0}; // an empty job book section

    private static EngineSnapshot v1(final long offset) {
        return new EngineSnapshot("p", 0, offset, offset, new byte[] {1}, null);
    }

    private static EngineSnapshot v2(final long offset) {
        return new EngineSnapshot("p", 0, offset, offset, new byte[] {1}, BOOK);
    }

    @Test
    void autoAndLatestStartOnlyFromSnapshotsWithTheJobBook() {
        final Map<String, List<EngineSnapshot>> all = Map.of("p", List.of(v2(10), v1(20), v1(30)));
        assertThat(SnapshotChoice.choose("latest", all, AuditRange.ALL).get("p").offset()).isEqualTo(10);
        assertThat(SnapshotChoice.choose("auto", all, AuditRange.of("40", null)).get("p").offset()).isEqualTo(10);
        assertThat(SnapshotChoice.choose("latest", Map.of("p", List.of(v1(20))), AuditRange.ALL)).isEmpty();
    }

    @Test
    void aNamedOldSnapshotIsRefusedWithTheReason() {
        final Map<String, List<EngineSnapshot>> all = Map.of("p", List.of(v2(10), v1(20)));
        assertThat(SnapshotChoice.choose("10", all, AuditRange.ALL).get("p").offset()).isEqualTo(10);
        assertThatThrownBy(() -> SnapshotChoice.choose("20", all, AuditRange.ALL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("journal 0@20", "format 1", "older scheduler", "--snapshot none", "[10, 20 (format 1)]");
    }
}
