package io.gpupool.scheduler.stream;

/**
 * The journal as the placer re-reads it when it restores a task: one partition's committed records from an
 * offset up to the offset the application has committed on it, which is where its processing resumes. The
 * entries below that offset were applied before the restart; the placer's stores hold their outcome.
 */
public interface JournalReader {
    /** One committed journal record. */
    interface Seen {
        void record(long offset, byte[] value);
    }

    /** Calls {@code each} with the records of {@code partition} from {@code from} to the committed offset, in order; returns that offset. */
    long readProcessed(int partition, long from, Seen each);

    /** For topologies that never restore a pool from the journal (a fresh test driver): reading is an error. */
    JournalReader NONE = (partition, from, each) -> {
        throw new IllegalStateException("this topology has no journal reader, so it cannot restore pool state");
    };
}
