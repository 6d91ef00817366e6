package io.gpupool.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchWorkDirectoryTest {

    @Test
    void aBenchLeavesNoStateBehind() throws Exception {
        final Path path;
        try (BenchWorkDirectory work = BenchWorkDirectory.create("gpupool-work-test-")) {
            path = work.path();
            final Path store = Files.createDirectories(path.resolve("app/0_1/rocksdb/placer-jobs"));
            Files.writeString(store.resolve("000001.sst"), "x".repeat(4096));
            Files.writeString(path.resolve("scheduler.log"), "log");
        }
        assertThat(path).doesNotExist();
    }

    @Test
    void aKeptDirectoryStaysForItsLogs() throws Exception {
        final Path path;
        try (BenchWorkDirectory work = BenchWorkDirectory.create("gpupool-work-test-")) {
            path = work.path();
            Files.writeString(path.resolve("scheduler.log"), "why it failed");
            work.keep("the check failed");
        }
        try {
            assertThat(path.resolve("scheduler.log")).hasContent("why it failed");
        } finally {
            BenchWorkDirectory.delete(path);
        }
        assertThat(path).doesNotExist();
    }

    @Test
    void deletingWhatIsAlreadyGoneIsNoError(@TempDir final Path dir) {
        assertThatCode(() -> BenchWorkDirectory.delete(dir.resolve("never-made"))).doesNotThrowAnyException();
    }
}
