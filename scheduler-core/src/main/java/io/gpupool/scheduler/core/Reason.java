package io.gpupool.scheduler.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Why a decision was taken: a code, a human message, and structured evidence (ordered).
 */
public record Reason(ReasonCode code, String message, Map<String, String> evidence) {
    public Reason {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        evidence = evidence == null || evidence.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(evidence));
    }

    public static Reason of(final ReasonCode code, final String message) {
        return new Reason(code, message, Map.of());
    }

    @Override
    public String toString() {
        return code + ": " + message + (evidence.isEmpty() ? "" : " " + evidence);
    }
}
