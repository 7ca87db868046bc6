#!/bin/bash
# Slurm job array: one shard per array task; resubmitting the same array after failures writes
# only the frames still missing (the manifest in OUT/manifest/ records finished frames).
#   sbatch --array=0-15 examples/dataset/slurm_array.sh
#SBATCH --job-name=lidarsim-dataset
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
set -eu
N=${SLURM_ARRAY_TASK_COUNT:?run with sbatch --array=0-(N-1)}
srun build/lidarsim dataset examples/dataset/dataset.yaml -o "${OUT:-/scratch/$USER/dataset}" \
    --frames "${FRAMES:-10000}" --shard "${SLURM_ARRAY_TASK_ID}/${N}" --threads "${SLURM_CPUS_PER_TASK}" --progress lines
