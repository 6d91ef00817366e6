package io.gpupool.cli.config;

import io.gpupool.scheduler.core.EngineConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;

/**
 * Lists the engine settings (quotas, policy, ...) in the help of every command that takes them with --set
 * or --engine, from the keys the engine itself parses, so that the list cannot fall behind the code.
 */
public final class EngineSettingsHelp {

    private static final List<String> OPTIONS = List.of("--set", "--engine");

    private EngineSettingsHelp() {
    }

    /** Adds the list to the footer of each such command under {@code root}. */
    public static void addTo(final CommandLine root) {
        final CommandLine.Model.CommandSpec spec = root.getCommandSpec();
        for (final String name : OPTIONS) {
            if (spec.findOption(name) != null) {
                final List<String> footer = new ArrayList<>(Arrays.asList(spec.usageMessage().footer()));
                footer.add("%nEngine settings for " + name + " KEY=VALUE (e.g. policy=fgd, tenant.ml.max-gpus=64):");
                footer.addAll(lines(EngineConfig.settingKeys()));
                spec.usageMessage().footer(footer.toArray(String[]::new));
                break;
            }
        }
        root.getSubcommands().values().forEach(EngineSettingsHelp::addTo);
    }

    private static List<String> lines(final List<String> keys) {
        final List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder("  ");
        for (final String k : keys) {
            if (line.length() + k.length() > 76) {
                lines.add(line.toString().stripTrailing());
                line = new StringBuilder("  ");
            }
            line.append(k).append(", ");
        }
        lines.add(line.substring(0, line.length() - 2));
        return lines;
    }
}
