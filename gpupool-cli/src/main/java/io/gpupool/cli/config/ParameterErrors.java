package io.gpupool.cli.config;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * A wrong flag gets one short message that says the fix: the error, picocli's "did you mean"
 * suggestions, and the command to see every option, instead of a full usage dump.
 */
public final class ParameterErrors implements CommandLine.IParameterExceptionHandler {

    @Override
    public int handleParseException(final CommandLine.ParameterException ex, final String[] args) {
        final CommandLine cmd = ex.getCommandLine();
        final PrintWriter err = cmd.getErr();
        err.println(cmd.getColorScheme().errorText("gpupool: " + ex.getMessage()));
        if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, err)) {
            err.println("Options of '" + cmd.getCommandSpec().qualifiedName() + "':");
            cmd.getCommandSpec().options().stream()
                    .filter(o -> !o.hidden())
                    .forEach(o -> err.println("  " + String.join(", ", o.names())));
        }
        err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return cmd.getExitCodeExceptionMapper() != null
                ? cmd.getExitCodeExceptionMapper().getExitCode(ex)
                : cmd.getCommandSpec().exitCodeOnInvalidInput();
    }
}
