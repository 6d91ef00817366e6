package io.gpupool.sink.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file applier: one JSON file per node, replaced atomically. */
class FileApplierTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void allocationsAreAddedAndRemovedPerNode() throws Exception {
        final FileApplier applier = new FileApplier(dir);
        final RecordingObserver observer = new RecordingObserver();
        final JobPart a = Parts.part("job-a", "node/1", List.of(0, 1), List.of(), Map.of(), null);
        final JobPart b = Parts.part("job-b", "node/1", List.of(5), List.of(), Map.of(), null);
        final JobPart c = Parts.part("job-c", "node-2", List.of(2), List.of(), Map.of(), null);
        applier.allocate(a, observer);
        applier.allocate(b, observer);
        applier.allocate(c, observer);
        assertThat(observer.pids).containsKeys(a.commandId(), b.commandId(), c.commandId());

        final JsonNode node1 = JSON.readTree(dir.resolve("node_1.json").toFile());
        assertThat(node1.get("node").asText()).isEqualTo("node/1");
        assertThat(node1.get("allocations")).hasSize(2);
        assertThat(node1.get("allocations").get(0).get("jobId").asText()).isEqualTo("job-a");
        assertThat(node1.get("allocations").get(0).get("cudaVisibleDevices").asText()).isEqualTo("0,1");
        assertThat(node1.get("allocations").get(0).get("gpuUuids").get(1).asText()).isEqualTo("GPU-node/1-1");

        assertThat(applier.stop(a, "released")).isPresent();
        assertThat(applier.stop(a, "released again")).as("second stop finds nothing").isEmpty();
        final JsonNode after = JSON.readTree(dir.resolve("node_1.json").toFile());
        assertThat(after.get("allocations")).hasSize(1);
        assertThat(after.get("allocations").get(0).get("jobId").asText()).isEqualTo("job-b");
        assertThat(JSON.readTree(dir.resolve("node-2.json").toFile()).get("allocations")).hasSize(1);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("node_1.json", "node-2.json");
        }
    }

    @Test
    void aReaderNeverSeesAHalfWrittenFile() throws Exception {
        final FileApplier applier = new FileApplier(dir);
        final RecordingObserver observer = new RecordingObserver();
        final Path file = dir.resolve("busy.json");
        applier.allocate(Parts.part("seed", "busy", List.of(0), List.of(), Map.of(), null), observer);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger reads = new AtomicInteger();
        final AtomicReference<Throwable> bad = new AtomicReference<>();
        final Thread reader = new Thread(() -> {
            while (!stop.get()) {
                try {
                    JSON.readTree(Files.readAllBytes(file)).get("allocations").size();
                    reads.incrementAndGet();
                } catch (final Exception e) {
                    bad.compareAndSet(null, e);
                }
            }
        });
        reader.start();
        // Many jobs with long env-free entries make each write big enough to be caught half-way if it were in place.
        for (int i = 0; i < 150; i++) {
            applier.allocate(Parts.part("job-" + i, "busy", List.of(0, 1, 2, 3, 4, 5, 6, 7), List.of(), Map.of(), null),
                    observer);
        }
        stop.set(true);
        reader.join();
        assertThat(bad.get()).as("every read parsed").isNull();
        assertThat(reads.get()).isPositive();
        assertThat(JSON.readTree(file.toFile()).get("allocations")).hasSize(151);
    }

    @Test
    void recoverRestoresAnEntrySomeoneRemoved() throws Exception {
        final FileApplier applier = new FileApplier(dir);
        final RecordingObserver observer = new RecordingObserver();
        final JobPart a = Parts.part("job-a", "n", List.of(3), List.of(), Map.of(), null);
        applier.allocate(a, observer);
        Files.delete(dir.resolve("n.json"));
        applier.recover(a, -1, System.currentTimeMillis(), observer);
        assertThat(JSON.readTree(dir.resolve("n.json").toFile()).get("allocations").get(0).get("jobId").asText())
                .isEqualTo("job-a");
        assertThat(observer.ended(a)).isFalse();
    }
}
