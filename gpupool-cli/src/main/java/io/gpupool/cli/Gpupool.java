package io.gpupool.cli;

import io.gpupool.cli.config.CliSetup;
import io.gpupool.cli.config.EngineSettingsHelp;
import io.gpupool.cli.config.ExitCodes;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * The one {@code gpupool} command. Each subcommand lives in its own class and is listed in {@link #SUBCOMMANDS}.
 */
@Command(
        name = "gpupool",
        mixinStandardHelpOptions = true,
        versionProvider = GpupoolVersion.class,
        description = "A GPU-pool scheduler built as an event-streaming pipeline on Apache Kafka.")
public final class Gpupool implements Runnable {
    /** The subcommands, in the order `gpupool --help` lists them: run, use, operate, analyse. */
    private static final List<Class<?>> SUBCOMMANDS = List.of(
            UpCommand.class,
            SubmitCommand.class,
            JobsCommand.class,
            QueueCommand.class,
            ExplainCommand.class,
            NodesCommand.class,
            PoolCommand.class,
            CancelCommand.class,
            LogsCommand.class,
            CollectorCommand.class,
            SchedulerCommand.class,
            SinkCommand.class,
            TopicsCommand.class,
            AuditCommand.class,
            ReplayCommand.class,
            ExportCommand.class,
            SimulateCommand.class,
            BenchCommand.class,
            CommandLine.HelpCommand.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(commandLine(args, System.getenv()).execute(args));
    }

    /** The configured command line, shared by {@link #main} and the tests; no environment or config file. */
    public static CommandLine commandLine() {
        return commandLine(new String[0], Map.of());
    }

    /** The command line with configuration layers (flags, then GPUPOOL_* environment, then --config file). */
    public static CommandLine commandLine(final String[] args, final Map<String, String> environment) {
        final CommandLine cli = new CommandLine(new Gpupool());
        // Picocli's default strategy keeps System.out/err as they were when it was built, and execute() sets them
        // back over setOut/setErr if they changed since (another thread of a JVM that runs gpupool in-process swapped
        // them): the same strategy, not as picocli's own handler object, leaves the writers the caller set alone.
        final CommandLine.RunLast runLast = new CommandLine.RunLast();
        cli.setExecutionStrategy(runLast::execute);
        final Class<?> named = args.length == 0 ? null : subcommandNamed(args[0]);
        for (final Class<?> c : named == null ? SUBCOMMANDS : List.<Class<?>>of(named)) {
            cli.addSubcommand(c);
        }
        CliSetup.configure(cli, args, environment);
        // One table for every command; the commands whose answer is more than ok/failed show it too.
        cli.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes (every command):%n")
                .exitCodeList(ExitCodes.helpList());
        for (final String name : List.of("submit", "cancel", "logs", "explain")) {
            final CommandLine sub = cli.getSubcommands().get(name);
            if (sub != null) {
                sub.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(ExitCodes.helpList());
            }
        }
        EngineSettingsHelp.addTo(cli);
        return cli;
    }

    /**
     * The subcommand the first argument names, so that only its command model is built: picocli builds a
     * command's model by reflection, and for all of them that is most of a short command's start-up (the
     * bench commands alone have dozens of options). Null for help, an option or a name no command has: then
     * every subcommand is there, for the list and for picocli's "did you mean".
     */
    private static Class<?> subcommandNamed(final String arg) {
        for (final Class<?> c : SUBCOMMANDS) {
            final Command command = c.getAnnotation(Command.class);
            if (c != CommandLine.HelpCommand.class && command != null
                    && (command.name().equals(arg) || List.of(command.aliases()).contains(arg))) {
                return c;
            }
        }
        return null;
    }
}
