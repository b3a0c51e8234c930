package main

import (
	"context"

	"github.com/sifu-dev/sifu/adapters/inproc"
	"github.com/sifu-dev/sifu/runner"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func init() {
	register("kungfu", suiteEntry{
		suite: kungfu.Suite,
		targets: map[string]func(runFlags) (runner.Target, error){
			"inproc": func(f runFlags) (runner.Target, error) {
				return faulted(f, kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
					t, err := inproc.NewKungfu()
					if err != nil {
						return nil, nil, err
					}
					return withFaults(f, t), func() {}, nil
				}}), nil
			},
			"http":  httpTarget,
			"stdio": stdioTarget,
		},
	})
}
