package io.gpupool.cli.config;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;

/**
 * A wrong flag or value gets one short message that says the fix: the error, picocli's "did you mean"
 * suggestions (or, for an unknown option with none close, the option names on a few lines), and the
 * command to see every option, instead of a full usage dump.
 */
public final class ParameterErrors implements CommandLine.IParameterExceptionHandler {

    @Override
    public int handleParseException(final CommandLine.ParameterException ex, final String[] args) {
        final CommandLine cmd = ex.getCommandLine();
        final PrintWriter err = cmd.getErr();
        err.println(cmd.getColorScheme().errorText("gpupool: " + ex.getMessage()));
        if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, err)
                && ex instanceof CommandLine.UnmatchedArgumentException) {
            err.println("Options of '" + cmd.getCommandSpec().qualifiedName() + "': "
                    + wrapped(cmd.getCommandSpec().options().stream().filter(o -> !o.hidden()).map(o -> o.longestName()).toList()));
        }
        err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return ExitCodes.USAGE.code();
    }

    /** Names separated by commas, in lines of about 100 characters. */
    private static String wrapped(final List<String> names) {
        final StringBuilder all = new StringBuilder();
        int line = 0;
        for (final String n : names) {
            if (all.length() > 0) {
                all.append(", ");
                line += 2;
            }
            if (line + n.length() > 100) {
                all.append(System.lineSeparator()).append("  ");
                line = 2;
            }
            all.append(n);
            line += n.length();
        }
        return all.toString();
    }
}
