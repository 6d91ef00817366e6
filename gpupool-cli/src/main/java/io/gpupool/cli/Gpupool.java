package io.gpupool.cli;

import io.gpupool.cli.config.CliSetup;
import io.gpupool.cli.config.EngineSettingsHelp;
import io.gpupool.cli.config.ExitCodes;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * The one {@code gpupool} command. Each subcommand lives in its own class and is listed here.
 */
@Command(
        name = "gpupool",
        mixinStandardHelpOptions = true,
        versionProvider = GpupoolVersion.class,
        description = "A GPU-pool scheduler built as an event-streaming pipeline on Apache Kafka.",
        subcommands = {
            // the order `gpupool --help` lists them in: run, use, operate, analyse
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
            CommandLine.HelpCommand.class,
        })
public final class Gpupool implements Runnable {

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
        final CommandLine cli = CliSetup.configure(new CommandLine(new Gpupool()), args, environment);
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
}
