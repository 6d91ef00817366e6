package io.gpupool.sink.apply;

import io.gpupool.sink.apply.AllocationFile.Allocation;
import io.gpupool.sink.apply.AllocationFile.Content;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Keeps one allocation file per node ({@code DIR/NODE.json}) for whatever starts the work there (a
 * device plugin, a Slurm prolog, a node agent). An ALLOCATE adds the job, RELEASE or EVICT removes
 * it. The job's own life is outside the sink, so a part "runs" from its entry to its removal.
 */
public final class FileApplier implements Applier {

    private final Path directory;
    private final Object lock = new Object();

    public FileApplier(final Path directory) {
        this.directory = directory;
    }

    @Override
    public String name() {
        return "file";
    }

    /** The allocation file of a node. */
    public AllocationFile fileOf(final String nodeId) {
        return new AllocationFile(directory.resolve(AllocationFile.fileName(nodeId)));
    }

    @Override
    public void allocate(final JobPart part, final PartObserver observer) throws IOException {
        put(part);
        observer.started(part, -1);
    }

    private void put(final JobPart part) throws IOException {
        synchronized (lock) {
            final AllocationFile file = fileOf(part.nodeId());
            final Content old = file.read(part.nodeId());
            final List<Allocation> next = new ArrayList<>();
            for (final Allocation a : old.allocations()) {
                if (!a.jobId().equals(part.jobId())) {
                    next.add(a);
                }
            }
            next.add(Allocation.of(part));
            file.write(new Content(part.nodeId(), System.currentTimeMillis(), next));
        }
    }

    @Override
    public Optional<Outcome> stop(final JobPart part, final String reason) throws IOException {
        synchronized (lock) {
            final AllocationFile file = fileOf(part.nodeId());
            final Content old = file.read(part.nodeId());
            final List<Allocation> next = new ArrayList<>(old.allocations());
            if (!next.removeIf(a -> a.commandId().equals(part.commandId()))) {
                return Optional.empty();
            }
            file.write(new Content(part.nodeId(), System.currentTimeMillis(), next));
            return Optional.of(Outcome.stopped(OptionalInt.empty(), reason));
        }
    }

    /** A stop rewrites one small file. */
    @Override
    public Duration longestStop() {
        return Duration.ofSeconds(5);
    }

    @Override
    public void recover(final JobPart part, final long pid, final long startedAtMillis, final PartObserver observer) {
        try {
            // The entry is normally still there; writing it again repairs a file someone removed.
            put(part);
        } catch (final IOException e) {
            observer.ended(part, Outcome.lost("allocation file could not be restored: " + e.getMessage()));
        }
    }

    @Override
    public void close() {
        // Nothing runs in the background.
    }
}
