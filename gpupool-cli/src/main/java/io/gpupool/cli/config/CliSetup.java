package io.gpupool.cli.config;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Map;
import picocli.CommandLine;

/** The behaviour every gpupool command shares: config layering, short error messages, clear failures. */
public final class CliSetup {

    private CliSetup() {
    }

    /** Installs the layers for this invocation on the command line and all its subcommands. */
    public static CommandLine configure(final CommandLine commandLine, final String[] args, final Map<String, String> environment) {
        commandLine.setParameterExceptionHandler(new ParameterErrors());
        commandLine.setExecutionExceptionHandler(CliSetup::reportFailure);
        try {
            commandLine.setDefaultValueProvider(ConfigLayers.of(Arrays.asList(args), environment));
        } catch (CommandLine.PicocliException e) {
            // A missing --config file: say so when the command runs, through the usual error path.
            commandLine.setDefaultValueProvider(argSpec -> {
                throw e;
            });
        }
        return commandLine;
    }

    /** A failure that is the user's to fix gets its message, not a stack trace. */
    private static int reportFailure(final Exception ex, final CommandLine commandLine, final CommandLine.ParseResult parseResult) {
        final PrintWriter err = commandLine.getErr();
        err.println(commandLine.getColorScheme().errorText("gpupool " + commandLine.getCommandName() + ": " + ex.getMessage()));
        if (ex instanceof ExitCodes.Failure f) {
            err.flush();
            return f.code().code();
        }
        if (System.getenv("GPUPOOL_DEBUG") != null) {
            ex.printStackTrace(err);
        } else {
            err.println("(set GPUPOOL_DEBUG=1 for the stack trace)");
        }
        err.flush();
        return ExitCodes.ERROR.code();
    }
}
