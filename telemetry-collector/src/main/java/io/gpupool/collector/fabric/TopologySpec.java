package io.gpupool.collector.fabric;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a {@code kind:FILE} topology argument: ibnetdiscover:FILE, slurm:FILE or static:FILE. */
public final class TopologySpec {
    private TopologySpec() {
    }

    public static FabricMap load(final String spec) {
        final int colon = spec.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("topology must be KIND:FILE with KIND one of ibnetdiscover, slurm, static; got '" + spec + "'");
        }
        final String kind = spec.substring(0, colon);
        final Path file = Path.of(spec.substring(colon + 1));
        final String text;
        try {
            text = new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read topology file " + file + ": " + e.getMessage(), e);
        }
        switch (kind) {
            case "ibnetdiscover":
                return IbnetdiscoverParser.parse(text);
            case "slurm":
                return SlurmTopologyParser.parse(text);
            case "static":
                return StaticTopologyParser.parse(text);
            default:
                throw new IllegalArgumentException("unknown topology kind '" + kind + "': use ibnetdiscover:FILE, slurm:FILE or static:FILE");
        }
    }
}
