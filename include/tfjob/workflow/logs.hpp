#pragma once
/// \file A TFJob's logs: the chief's (as the operator marks it) or one replica's, or every
/// replica's; following waits through Pending (reporting progress), picks up restarted
/// containers and recreated pods, and ends when the job finishes. For a failed job the
/// failed pod's output is what matters, and which pod and exit code.
///
/// One header per concern, each included here:
/// - logs/record.hpp   what a read is given and gives back (LogSource, LogEvent,
///                     JobLogOptions, JobLogResult, LogRecord)
/// - logs/targets.hpp  what it reads: a job's streams (LogTarget, LogTargetFilter, log_targets)
/// - logs/follow.hpp   how one replica is read or followed (replica_log_records, replica_logs)
/// - logs/merge.hpp    how streams run together and merge by time (LogMerger, job_logs)
/// - logs/save.hpp     how logs are saved (LogSaver, save_job_logs, LogSaveTask)
/// - logs/read.hpp     a logs reader's whole run (read_logs, explain_failure)

#include <tfjob/detail/files.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/job_watch.hpp>
#include <tfjob/workflow/logs/follow.hpp>
#include <tfjob/workflow/logs/merge.hpp>
#include <tfjob/workflow/logs/read.hpp>
#include <tfjob/workflow/logs/record.hpp>
#include <tfjob/workflow/logs/save.hpp>
#include <tfjob/workflow/logs/targets.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/status.hpp>
#include <tfjob/workflow/wait.hpp>
