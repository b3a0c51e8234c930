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
			"inproc": func(runFlags) (runner.Target, error) {
				return kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
					t, err := inproc.NewKungfu()
					return t, func() {}, err
				}}, nil
			},
			"http":  httpTarget,
			"stdio": stdioTarget,
		},
	})
}
