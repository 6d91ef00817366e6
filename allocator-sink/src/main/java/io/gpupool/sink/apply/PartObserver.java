package io.gpupool.sink.apply;

/**
 * What an applier tells the sink about a part it runs. Called from the applier's own threads;
 * {@link #ended} is called at most once per part, also when the part was stopped.
 */
public interface PartObserver {

    /** The part runs now; {@code pid} is the process id when there is a process, else -1. */
    void started(JobPart part, long pid);

    /** The part is over, however it ended. */
    void ended(JobPart part, Outcome outcome);
}
