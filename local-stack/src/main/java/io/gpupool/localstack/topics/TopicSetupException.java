package io.gpupool.localstack.topics;

/** Talking to the cluster about topics failed; the message names the step and the cause. */
public final class TopicSetupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TopicSetupException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
