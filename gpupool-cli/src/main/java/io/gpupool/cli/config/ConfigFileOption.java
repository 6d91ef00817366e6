package io.gpupool.cli.config;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --config FILE} flag. It is read before parsing by {@link ConfigLayers}; declaring it
 * here makes picocli accept it and list it in {@code --help}.
 */
public final class ConfigFileOption {

    @Option(names = ConfigLayers.CONFIG_OPTION, paramLabel = "FILE",
            description = "Properties file with defaults for any option (key: the option name, e.g. data-dir=/srv/gpupool, "
                    + "or <command>.<option>). Flags and GPUPOOL_* environment variables win over it.")
    Path config;
}
