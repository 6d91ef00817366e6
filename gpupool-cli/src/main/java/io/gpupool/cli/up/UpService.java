package io.gpupool.cli.up;

/**
 * One part of what {@code gpupool up} runs (the stack, the topics, later the collectors, the
 * scheduler, the sink, the job generator). Services start in list order and stop in reverse.
 */
public interface UpService {

    /** A short name for progress lines, e.g. "broker" or "scheduler". */
    String name();

    /**
     * Starts the service; returns what stops it. May read what earlier services left in the context.
     * Must not return before the service is ready for the next one to use.
     */
    AutoCloseable start(UpContext context) throws Exception;
}
