package io.gpupool.simulator;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** Paths of the trace slices under src/test/resources/traces (see the README there). */
public final class TestTraces {

    private TestTraces() {
    }

    public static Path path(final String name) {
        try {
            return Path.of(TestTraces.class.getResource("/traces/" + name).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("missing test trace " + name, e);
        }
    }
}
