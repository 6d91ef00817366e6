package io.gpupool.collector.fabric;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/** Reads a {@code kind:FILE} topology argument: ibnetdiscover:FILE, slurm:FILE or static:FILE. */
public final class TopologySpec {
    private static final String KINDS = "use ibnetdiscover:FILE (ibnetdiscover --ports output), slurm:FILE (topology.conf) or static:FILE";

    private TopologySpec() {
    }

    public static FabricMap load(final String spec) {
        final int colon = spec.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("topology '" + spec + "' is not KIND:FILE: " + KINDS);
        }
        final String kind = spec.substring(0, colon);
        final Function<String, FabricMap> parser;
        switch (kind) {
            case "ibnetdiscover":
                parser = IbnetdiscoverParser::parse;
                break;
            case "slurm":
                parser = SlurmTopologyParser::parse;
                break;
            case "static":
                parser = StaticTopologyParser::parse;
                break;
            default:
                throw new IllegalArgumentException("unknown topology kind '" + kind + "': " + KINDS);
        }
        final Path file = Path.of(spec.substring(colon + 1));
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("topology file " + file + " does not exist or is not a file");
        }
        try {
            return parser.apply(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read topology file " + file + ": " + e.getMessage(), e);
        }
    }
}
