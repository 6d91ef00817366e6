package io.gpupool.serde;

import io.gpupool.serde.RecordDecodeException.Problem;
import java.io.IOException;

/**
 * A record's count or length is negative, more than its remaining bytes (the body ends before
 * the record would) or more than the {@link DecodeLimits} allow; raised before anything is
 * allocated for it. An IOException so that it passes through Avro's readers unwrapped.
 */
final class DecodeLimitException extends IOException {
    private static final long serialVersionUID = 1L;

    private final Problem problem;

    DecodeLimitException(final Problem problem, final String detail) {
        super(detail);
        this.problem = problem;
    }

    Problem problem() {
        return problem;
    }
}
