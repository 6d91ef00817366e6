package io.gpupool.cli;

import io.gpupool.cli.config.ConfigFileOption;
import io.gpupool.cli.submit.DecisionWait;
import io.gpupool.cli.submit.JobCancellation;
import io.gpupool.cli.submit.StackClient;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpupool cancel JOB}: dequeues a waiting job or stops a running one; with --wait prints the decision. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = {"Cancels a job: a queued job leaves the queue, a running one is stopped and its GPUs released.",
            "The scheduler is asked first: an unknown job (exit code 4) or one that has ended (2) is said at once."})
public final class CancelCommand implements Callable<Integer> {

    @Parameters(paramLabel = "JOB", description = "Job id, as submit printed it.")
    String jobId;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, in words (kept in the decision).")
    String reason;

    @Mixin
    DecisionWait wait;

    @Mixin
    StackClient stack;

    @Mixin
    ConfigFileOption configFile;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final String problem = JobCancellation.problem(jobId);
        if (problem != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), problem);
        }
        return JobCancellation.send(stack, spec, jobId, reason, wait.await, wait.timeout);
    }
}
