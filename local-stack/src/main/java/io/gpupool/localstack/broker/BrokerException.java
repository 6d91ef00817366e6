package io.gpupool.localstack.broker;

/** The local broker could not be started, reached or stopped; the message says where to look. */
public final class BrokerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BrokerException(final String message) {
        super(message);
    }

    public BrokerException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
