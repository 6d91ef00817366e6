package io.gpupool.sink.apply;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One node's allocation file: the jobs that hold GPUs there, as JSON. Written to a temporary file,
 * forced to disk and renamed over the old one, so a reader (a device plugin, a Slurm prolog) sees
 * the old or the new content, never half of it.
 */
public final class AllocationFile {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** The file's content. */
    public record Content(String node, long updatedAtMillis, List<Allocation> allocations) {
        public Content {
            allocations = List.copyOf(allocations == null ? List.of() : allocations);
        }
    }

    /** One job's GPUs on the node; cudaVisibleDevices is what the job should see. */
    public record Allocation(String jobId, String decisionId, String commandId, String jobName, String tenant,
                             List<Integer> gpuIndices, List<String> gpuUuids, String cudaVisibleDevices, int rank,
                             List<String> gangNodes) {

        static Allocation of(final JobPart p) {
            return new Allocation(p.jobId(), p.decisionId(), p.commandId(), p.jobName(), p.tenant(), p.gpuIndices(),
                    p.gpuUuids(), ExecEnvironment.cudaVisibleDevices(p), p.rank(), p.gangNodes());
        }
    }

    private final Path path;

    public AllocationFile(final Path path) {
        this.path = path;
    }

    public Path path() {
        return path;
    }

    /** The file's name for a node: the node id with anything unsafe in a file name replaced. */
    public static String fileName(final String nodeId) {
        return nodeId.replaceAll("[^A-Za-z0-9._-]", "_") + ".json";
    }

    /** What the file holds now; an empty allocation list when there is no file yet. */
    public Content read(final String node) throws IOException {
        if (!Files.exists(path)) {
            return new Content(node, 0L, new ArrayList<>());
        }
        return JSON.readValue(path.toFile(), Content.class);
    }

    /** Replaces the file atomically. */
    public void write(final Content content) throws IOException {
        Files.createDirectories(path.toAbsolutePath().getParent());
        final Path tmp = path.resolveSibling("." + path.getFileName() + ".tmp");
        final byte[] bytes = JSON.writeValueAsBytes(content);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(bytes));
            // Forced before the rename: after a crash the new name never points at missing data.
            ch.force(true);
        }
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
