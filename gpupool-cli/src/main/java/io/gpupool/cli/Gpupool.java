package io.gpupool.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The one {@code gpupool} command. Each subcommand lives in its own class and is listed here.
 */
@Command(
        name = "gpupool",
        mixinStandardHelpOptions = true,
        versionProvider = GpupoolVersion.class,
        description = "A GPU-pool scheduler built as an event-streaming pipeline on Apache Kafka.",
        subcommands = {
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
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, shared by {@link #main} and the tests. */
    public static CommandLine commandLine() {
        return new CommandLine(new Gpupool());
    }
}
