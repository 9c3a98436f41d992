"""Plausible student mistakes for 04_fit_api; each must lose points on the tests of its exercise."""

MUTANTS = [
    {
        "name": "accuracy thresholds raw logits at 0.5 (the book's bug)",
        "exercise": "metrics",
        "old": "hits = ((preds.detach() > 0) == (targets.detach() > 0.5))",
        "new": "hits = ((preds.detach() > 0.5) == (targets.detach() > 0.5))",
    },
    {
        "name": "metrics are not reset at the start of a pass",
        "exercise": "run_epoch",
        "old": "    for metric in metrics_dict.values():\n        metric.reset()\n",
        "new": "",
    },
    {
        "name": "epoch loss weighted by batch size instead of the unweighted mean of batch losses",
        "exercise": "run_epoch",
        "old": "losses.append(loss.item())",
        "new": "losses.extend([loss.item()] * len(targets))",
    },
    {
        "name": "gradients never zeroed (they accumulate across batches)",
        "exercise": "run_epoch",
        "old": "                optimizer.zero_grad()\n",
        "new": "",
    },
    {
        "name": "evaluation pass left in training mode (dropout on)",
        "exercise": "run_epoch",
        "old": "net.train(training)",
        "new": "net.train()",
    },
    {
        "name": "early stopping one epoch too soon (>= instead of >)",
        "exercise": "early_stopping",
        "old": "return len(values) - best_index(values, mode) > patience",
        "new": "return len(values) - best_index(values, mode) >= patience",
    },
    {
        "name": "predict without switching to eval mode",
        "exercise": "keras_model",
        "old": "        self.net.eval()\n        outputs = []\n",
        "new": "        outputs = []\n",
    },
    {
        "name": "history has no lr column",
        "exercise": "fit",
        "old": "        row[\"lr\"] = lr\n",
        "new": "",
    },
    {
        "name": "lr column records the rate after the scheduler stepped",
        "exercise": "fit",
        "old": "row[\"lr\"] = lr",
        "new": "row[\"lr\"] = self.optimizer.param_groups[0][\"lr\"]",
    },
    {
        "name": "scheduler stepped once per batch instead of once per epoch",
        "exercise": "fit",
        "old": "            self.lr_scheduler.step()\n",
        "new": "            for _ in train_data:\n                self.lr_scheduler.step()\n",
    },
    {
        "name": "best weights not restored at the end of fit",
        "exercise": "fit",
        "old": "    if saved:\n        self.load_ckpt(ckpt_path)\n",
        "new": "",
    },
    {
        "name": "checkpoint written after every epoch, not only the best",
        "exercise": "fit",
        "old": "if best_index(values, mode) == len(values) - 1:",
        "new": "if True:",
    },
    {
        "name": "plot_history draws only the training curve",
        "exercise": "plot_history",
        "old": "for split in (\"train\", \"val\"):",
        "new": "for split in (\"train\",):",
    },
    # device rules, visible on a CPU-only grader through the 'meta' stand-in GPU
    {
        "name": "run_epoch calls .to(device) on the batch without assigning the result",
        "exercise": "run_epoch",
        "old": "            features, targets = features.to(device), targets.to(device)\n",
        "new": "            features.to(device)\n            targets.to(device)\n",
    },
    {
        "name": "KerasModel keeps the net where it was instead of moving it to model.device",
        "exercise": "keras_model",
        "old": "        self.net = net.to(self.device)\n",
        "new": "        self.net = net\n",
    },
    {
        "name": "predict leaves its outputs on the device",
        "exercise": "keras_model",
        "old": "outputs.append(self.net(features.to(self.device)).detach().cpu())",
        "new": "outputs.append(self.net(features.to(self.device)).detach())",
    },
    {
        "name": "predict never moves the batches to the device",
        "exercise": "keras_model",
        "old": "outputs.append(self.net(features.to(self.device)).detach().cpu())",
        "new": "outputs.append(self.net(features).detach().cpu())",
    },
    {
        "name": "MeanAbsoluteError accumulates a tensor that keeps the graph of preds alive",
        "exercise": "metrics",
        "old": "        err = (preds.detach() - targets.detach()).abs().sum().item()\n        n = targets.numel()\n        self.abs_error += err\n",
        "new": "        err = (preds - targets).abs().sum()\n        n = targets.numel()\n        self.abs_error = self.abs_error + err\n",
    },
    # device bugs a CPU-only grader sees through 'meta', standing for a second GPU (cuda:1) of a machine with CUDA
    {
        "name": "run_epoch moves the predictions to the CPU before the metric",
        "exercise": "run_epoch",
        "old": "                metric(preds.detach(), targets)",
        "new": "                metric(preds.detach().cpu(), targets)",
    },
    {
        "name": "predict hard-codes 'cuda' (when available) instead of the model's device",
        "exercise": "keras_model",
        "old": "outputs.append(self.net(features.to(self.device)).detach().cpu())",
        "new": "outputs.append(self.net(features.to(\"cuda\" if torch.cuda.is_available() else \"cpu\")).detach().cpu())",
    },
    {
        "name": "device=None always means the CPU",
        "exercise": "keras_model",
        "old": "            device = \"cuda\" if torch.cuda.is_available() else \"cpu\"",
        "new": "            device = \"cpu\"",
    },
]
