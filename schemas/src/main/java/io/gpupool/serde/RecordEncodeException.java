package io.gpupool.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A record could not be serialized: its schema was refused by the registry (cause
 * {@link io.gpupool.registry.IncompatibleSchemaException}), is not registered while auto-register is
 * off, or the registry could not be reached.
 */
public final class RecordEncodeException extends SerializationException {
    private static final long serialVersionUID = 1L;

    private final String topic;
    private final String subject;

    public RecordEncodeException(final String topic, final String subject, final String message, final Throwable cause) {
        super("cannot serialize record for topic " + topic + " (subject " + subject + "): " + message, cause);
        this.topic = topic;
        this.subject = subject;
    }

    public String topic() {
        return topic;
    }

    public String subject() {
        return subject;
    }
}
