#pragma once
/// \file The cluster side of the training workflow: find a job's pods and events, check a
/// submission before anything is created (CRD served, namespace, permission, GPUs, TF2 +
/// Master), and submit with server-side apply so that resubmitting the same spec changes
/// nothing and a different spec is refused unless the caller asks to replace the job.
///
/// A TFJob is decoded at the client's edge (decode_tfjob, get_tfjob), keeping what the SDK
/// does not model; submit sends the job as the user wrote it.
///
/// One header per concern, each included here:
/// - cluster/reads.hpp          where each kind lives; lists, get, a job's pods and events
/// - cluster/submit_checks.hpp  the checks before a submit (preflight_submit)
/// - cluster/submit.hpp         submit with server-side apply; claims and owned objects

#include <tfjob/workflow/cluster/reads.hpp>
#include <tfjob/workflow/cluster/submit.hpp>
#include <tfjob/workflow/cluster/submit_checks.hpp>
