package io.gpupool.scheduler.core;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Why a decision was taken: a code, a human message, and structured evidence, sorted by subject.
 * Sorted, not kept in the order given: callers build evidence with {@code Map.of}, whose iteration
 * order differs between JVM runs, and the evidence is written into engine snapshots and explain text.
 */
public record Reason(ReasonCode code, String message, Map<String, String> evidence) {
    public Reason {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        evidence = evidence == null || evidence.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new TreeMap<>(evidence));
    }

    public static Reason of(final ReasonCode code, final String message) {
        return new Reason(code, message, Map.of());
    }

    @Override
    public String toString() {
        return code + ": " + message + (evidence.isEmpty() ? "" : " " + evidence);
    }
}
