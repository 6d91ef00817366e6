package io.gpupool.bench.pipeline;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The results of a bench's sends: a record that did not get in must fail the bench, not leave a reader
 * waiting for it or a figure counting it.
 */
final class CheckedSends implements Callback {
    private final AtomicLong written = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();

    @Override
    public void onCompletion(final RecordMetadata metadata, final Exception exception) {
        if (exception != null) {
            failure.compareAndSet(null, exception);
        } else {
            written.incrementAndGet();
        }
    }

    /** Throws if a send so far has failed. */
    void check() {
        final Exception e = failure.get();
        if (e != null) {
            throw new IllegalStateException("a bench record was not written: " + e, e);
        }
    }

    /** Flushes {@code producer}, then the number of records written; throws if any was not. */
    long flushAndCount(final Producer<?, ?> producer) {
        producer.flush();
        check();
        return written.get();
    }
}
