package io.gpupool.cli.config;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where an option's value comes from when it is not on the command line: first the environment
 * ({@code --data-dir} is {@code GPUPOOL_DATA_DIR}), then the properties file named by
 * {@code --config FILE} or {@code GPUPOOL_CONFIG} ({@code up.data-dir=...} for one command, or
 * {@code data-dir=...} for all), then the option's own default. A flag always wins, because
 * picocli asks this provider only for options that were not given.
 */
public final class ConfigLayers implements CommandLine.IDefaultValueProvider {

    public static final String ENV_PREFIX = "GPUPOOL_";
    public static final String CONFIG_OPTION = "--config";
    public static final String CONFIG_ENV = ENV_PREFIX + "CONFIG";

    private final Map<String, String> environment;
    private final Map<String, String> file;
    private final Optional<Path> fileName;

    private ConfigLayers(final Map<String, String> environment, final Map<String, String> file, final Optional<Path> fileName) {
        this.environment = Collections.unmodifiableMap(new TreeMap<>(environment));
        this.file = Collections.unmodifiableMap(new TreeMap<>(file));
        this.fileName = fileName;
    }

    /** No environment and no file: only flags and built-in defaults count. */
    public static ConfigLayers none() {
        return new ConfigLayers(Map.of(), Map.of(), Optional.empty());
    }

    /**
     * The layers for one invocation. The config file has to be known before picocli parses
     * (defaults are applied first), so {@code --config} is looked up in the raw arguments here.
     */
    public static ConfigLayers of(final List<String> args, final Map<String, String> environment) {
        final Optional<Path> path = configFileArgument(args)
                .or(() -> Optional.ofNullable(environment.get(CONFIG_ENV)).filter(s -> !s.isBlank()))
                .map(Path::of);
        return new ConfigLayers(environment, path.map(ConfigLayers::load).orElse(Map.of()), path);
    }

    static Optional<String> configFileArgument(final List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            final String arg = args.get(i);
            if (arg.equals("--")) {
                break;
            }
            if (arg.equals(CONFIG_OPTION) && i + 1 < args.size()) {
                return Optional.of(args.get(i + 1));
            }
            if (arg.startsWith(CONFIG_OPTION + "=")) {
                return Optional.of(arg.substring(CONFIG_OPTION.length() + 1));
            }
        }
        return Optional.empty();
    }

    private static Map<String, String> load(final Path path) {
        if (!Files.isRegularFile(path)) {
            throw new CommandLine.PicocliException("config file " + path + " does not exist; check --config or " + CONFIG_ENV);
        }
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read config file " + path, e);
        }
        final Map<String, String> map = new TreeMap<>();
        properties.stringPropertyNames().forEach(k -> map.put(k.trim(), properties.getProperty(k).trim()));
        return map;
    }

    @Override
    public String defaultValue(final ArgSpec argSpec) {
        if (!argSpec.isOption()) {
            return null;
        }
        final OptionSpec option = (OptionSpec) argSpec;
        final String name = key(option);
        if (name.equals("config")) {
            return null;
        }
        final String fromEnv = environment.get(envName(name));
        if (fromEnv != null) {
            return fromEnv;
        }
        final String command = option.command() == null ? "" : option.command().qualifiedName(".");
        final String scoped = file.get(stripRoot(command) + "." + name);
        if (scoped != null) {
            return scoped;
        }
        return file.get(name);
    }

    /** {@code --bootstrap-server} is {@code bootstrap-server}. */
    static String key(final OptionSpec option) {
        return option.longestName().replaceFirst("^-+", "");
    }

    /** {@code bootstrap-server} is {@code GPUPOOL_BOOTSTRAP_SERVER}. */
    public static String envName(final String key) {
        return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
    }

    private static String stripRoot(final String qualified) {
        final int dot = qualified.indexOf('.');
        return dot < 0 ? qualified : qualified.substring(dot + 1);
    }

    /** Every entry of the config file, so a command can pass on settings such as {@code gpupool.topic.*}. */
    public Map<String, String> fileEntries() {
        return file;
    }

    public Optional<Path> fileName() {
        return fileName;
    }

    /** The layers installed on this command's command line, or none. */
    public static ConfigLayers of(final CommandLine.Model.CommandSpec spec) {
        final CommandLine.IDefaultValueProvider provider = spec.defaultValueProvider();
        return provider instanceof ConfigLayers ? (ConfigLayers) provider : none();
    }
}
