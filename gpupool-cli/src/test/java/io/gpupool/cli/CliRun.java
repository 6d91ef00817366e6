package io.gpupool.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import picocli.CommandLine;

/** Runs the real command line in-process and keeps what it printed. */
public record CliRun(int exitCode, String out, String err) {

    public static CliRun of(final Map<String, String> environment, final String... args) {
        final CommandLine cli = Gpupool.commandLine(args, environment);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        final int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    public static CliRun of(final String... args) {
        return of(Map.of(), args);
    }
}
